"""Launching the user's editor on a file: $VISUAL or $EDITOR read as a command line (the Windows
way on Windows), run with Ctrl-C left to it, and a refused edit kept aside with secrets masked."""

from __future__ import annotations

import os
from pathlib import Path

from errnote.errors import ErrnoteError


def editor_command() -> tuple[str, list[str]]:
    """The user's editor setting ($VISUAL, else $EDITOR, else the platform's own) and its command
    line; a setting that cannot be read is refused before anything is copied."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or ("notepad" if os.name == "nt" else "vi")
    return editor, editor_argv(editor, windows=os.name == "nt")


def editor_argv(editor: str, *, windows: bool) -> list[str]:
    """The command line of `editor` ($VISUAL or $EDITOR, which may hold options), the file to come.
    On Windows backslashes are path separators, not escapes, and `code` is `code.cmd`: the
    program is looked up as the shell would (PATHEXT)."""
    import shlex
    import shutil

    try:
        # On Windows a backslash separates folders: kept as it is, quotes still group words (as
        # Git for Windows' sh reads `core.editor`).
        parts = shlex.split(_backslashes_kept(editor) if windows else editor)
    except ValueError as exc:  # an unbalanced quote
        raise ErrnoteError(f"cannot read $EDITOR {editor!r}: {exc}", "fix the quotes in $EDITOR") from None
    if not parts:
        raise ErrnoteError("$EDITOR is empty", "set $EDITOR (or $VISUAL) to your editor")
    program = shutil.which(parts[0]) if windows else None
    return [program or parts[0], *parts[1:]]


def _backslashes_kept(command: str) -> str:
    """`command` with each backslash outside single quotes doubled, so that a POSIX split keeps it
    (inside single quotes a POSIX split keeps backslashes already)."""
    out: list[str] = []
    quote = ""
    for c in command:
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c  # an apostrophe inside double quotes is just a letter
        out.append("\\\\" if c == "\\" and quote != "'" else c)
    return "".join(out)


def run_editor(argv: list[str]) -> int:
    """Run the editor and wait for it. Ctrl-C belongs to the editor, as with git: errnote ignores
    it meanwhile, and an editor that dies of it counts as a refused edit (the text is kept)."""
    import signal
    import subprocess

    def default_sigint() -> None:  # in the editor's process, before it starts
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return subprocess.call(argv, preexec_fn=default_sigint if os.name == "posix" else None)
    finally:
        signal.signal(signal.SIGINT, previous)


def keep_aside(path: Path) -> None:
    """Keep a refused edit for the user, with secrets masked like everything errnote leaves on disk
    (bytes that are not UTF-8 are kept as they are)."""
    from errnote.redact.secrets import redact
    from errnote.storage.files import atomic_write_bytes

    try:
        raw = path.read_bytes()
    except OSError:
        return
    text = raw.decode("utf-8", errors="surrogateescape")
    masked = redact(text)
    if masked != text:
        atomic_write_bytes(path, masked.encode("utf-8", errors="surrogateescape"))
