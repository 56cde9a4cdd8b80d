"""Launching the user's editor: $VISUAL / $EDITOR read as a command line, the POSIX way or the Windows way."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("editor", "windows", "argv"),
    [
        ("vim", False, ["vim"]),
        ("code --wait", False, ["code", "--wait"]),
        ("'/opt/my editor/bin/ed' -n", False, ["/opt/my editor/bin/ed", "-n"]),
        # Windows: backslashes are separators, quotes (either kind) hold spaces.
        (r"C:\Windows\notepad.exe", True, [r"C:\Windows\notepad.exe"]),
        (r'"C:\Program Files\Ed\ed.exe" --wait', True, [r"C:\Program Files\Ed\ed.exe", "--wait"]),
        (
            "'C:/Program Files/Np++/np++.exe' -multiInst",
            True,
            ["C:/Program Files/Np++/np++.exe", "-multiInst"],
        ),
        (r'code --wait --user-data-dir="C:\a b"', True, ["code", "--wait", r"--user-data-dir=C:\a b"]),
        (r"'C:\Program Files\Subl\subl.exe' -w", True, [r"C:\Program Files\Subl\subl.exe", "-w"]),
        (r""""C:\Tools\Bob's Ed\ed.exe" C:\tmp""", True, [r"C:\Tools\Bob's Ed\ed.exe", r"C:\tmp"]),
    ],
)
def test_the_editor_command_line(editor: str, windows: bool, argv: list[str]) -> None:
    from errnote.integrations.editor import editor_argv

    assert editor_argv(editor, windows=windows) == argv
