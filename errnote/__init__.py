"""errnote: a repository-local error notebook for AI coding agents.

The Python API is the same one the command line uses:

    from errnote import Notebook
    nb = Notebook.locate()
    nb.add("lesson", "Use make build, not --all-features", reason="the TLS features exclude each other")
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing`'s: the engine's client path does not import typing
if TYPE_CHECKING:
    from typing import Any

    from errnote.errors import ErrnoteError
    from errnote.model.entry import Entry, EntryType, Relation, Status
    from errnote.notebook import Notebook

__version__ = "0.1.0.dev0"
__all__ = ["Entry", "EntryType", "ErrnoteError", "Notebook", "Relation", "Status", "__version__"]

# issue 21 (engine): the names are imported when first used, so that `errnote.engine.client` (a
# hook through the warm engine) loads no errnote module beyond the standard library.
_LAZY = {
    "ErrnoteError": "errnote.errors",
    "Entry": "errnote.model.entry",
    "EntryType": "errnote.model.entry",
    "Relation": "errnote.model.entry",
    "Status": "errnote.model.entry",
    "Notebook": "errnote.notebook",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'errnote' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
