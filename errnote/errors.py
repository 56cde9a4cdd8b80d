"""The one error root of errnote: every message says what went wrong and what to do next."""

from __future__ import annotations


class ErrnoteError(Exception):
    """A problem the user can fix; the CLI prints it on one line and exits 1."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class UsageError(ErrnoteError):
    """The command line itself is wrong (bad value for an option); exit code 2."""

    exit_code = 2


class NotebookNotFound(ErrnoteError):
    """No `.errnote/` directory was found from here up to the filesystem root."""


class EntryNotFound(ErrnoteError):
    """No entry has the given id or id prefix."""


class AmbiguousId(ErrnoteError):
    """An id prefix matches more than one entry."""


class InvalidEntry(ErrnoteError):
    """An entry file (or the data for a new entry) does not pass validation."""

    def __init__(self, message: str, hint: str | None = None, path: str | None = None) -> None:
        super().__init__(message if path is None else f"{path}: {message}", hint)
        self.path = path


class ConflictedEntry(InvalidEntry):
    """An entry file holds the conflict markers a git merge left (`errnote resolve` settles it)."""
