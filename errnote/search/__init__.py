"""The search floor: analysis, the thesaurus, the derived Whoosh index and ranked search.

Importing this package imports nothing else (no Whoosh): `errnote --help` and the hooks pay only
for the modules they use.
"""
