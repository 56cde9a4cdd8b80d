"""errnote: a repository-local error notebook for AI coding agents.

The Python API is the same one the command line uses:

    from errnote import Notebook
    nb = Notebook.locate()
    nb.add("lesson", "Use make build, not --all-features", reason="the TLS features exclude each other")
"""

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry, EntryType, Relation, Status
from errnote.notebook import Notebook

__version__ = "0.1.0.dev0"
__all__ = ["Entry", "EntryType", "ErrnoteError", "Notebook", "Relation", "Status", "__version__"]
