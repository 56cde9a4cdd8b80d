"""errnote: a repository-local error notebook for AI coding agents.

The Python API is the same one the command line uses:

    from errnote import Notebook
    nb = Notebook.locate()
    nb.add("lesson", "Use make build, not --all-features", reason="the TLS features exclude each other")
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry, EntryType, Relation, Status

if TYPE_CHECKING:
    from errnote.notebook import Notebook

__version__ = "0.1.0.dev0"
__all__ = ["Entry", "EntryType", "ErrnoteError", "Notebook", "Relation", "Status", "__version__"]


def __getattr__(name: str) -> Any:
    # The facade is imported on first use: `errnote --help` and the hooks' fast path read no notebook.
    if name == "Notebook":
        from errnote.notebook import Notebook

        return Notebook
    raise AttributeError(f"module 'errnote' has no attribute {name!r}")
