"""errnote's git merge driver for entry files, registered in a clone's .git/config (by `errnote init`)."""

from __future__ import annotations

from pathlib import Path

from errnote.integrations.installation import this_errnote


def ensure_merge_driver(repo_root: Path) -> str:
    """Register errnote's merge driver for entry files in this clone's .git/config, once; says what
    it did ("" for nothing: already there, or no git repository)."""
    import shlex
    import shutil

    from errnote.storage.history import merge_driver, register_merge_driver
    from errnote.storage.merge import DRIVER_NAME, driver_command

    if not (repo_root / ".git").exists():
        return ""
    current = merge_driver(repo_root, DRIVER_NAME)
    if current is not None:
        try:
            program = shlex.split(current)[0]
        except (ValueError, IndexError):
            return ""  # somebody's own setting: left alone
        gone = (program.startswith("/") and not Path(program).exists()) or not shutil.which(program)
        if "merge-entry" not in current or not gone:
            return ""  # works, or is somebody's own driver

    # The errnote of this installation: the one on PATH only if it is the same (another package
    # of that name exists); a driver that cannot run falls back to git's line merge.
    exe = this_errnote()
    title = "errnote: merge entry files field by field"
    if not register_merge_driver(repo_root, DRIVER_NAME, title, driver_command(exe)):
        return ""
    if current is not None:
        return f"re-registered the merge driver for entry files in .git/config ({program} is gone)"
    return "registered the merge driver for entry files in .git/config"
