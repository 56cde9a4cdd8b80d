"""A notebook's folder: found (like git, or where `--notebook` / `$ERRNOTE_DIR` says) and created."""

from __future__ import annotations

import os
from pathlib import Path

from errnote.config import DEFAULT_CONFIG_TEXT
from errnote.errors import NotebookNotFound
from errnote.storage.layout import CONFIG_NAME, ENTRIES_DIRNAME, GITIGNORE_TEXT, NOTEBOOK_DIRNAME

NOTEBOOK_README = """\
# errnote notebook

Entries recorded with `errnote` (an error notebook for AI coding agents): one Markdown file per entry
under `entries/<type>s/`, YAML front-matter on top. Commit them with the code and review them in
pull requests like any other change. `cache/` is ignored by git and belongs to this clone: the
search index, the catalog and hook state are rebuilt from the files whenever they are missing; it
also keeps the record of what `errnote hooks install` added (for `uninstall`) and the text of an
edit that `errnote edit` refused (the error names the file). `.gitattributes`
sends entry files to errnote's merge driver: run `errnote init` once in each clone to register it.
"""


def unresolved_last(path: Path) -> Path:
    """`path` made absolute and resolved, except a last part named `.errnote`: a notebook linked
    into a repository belongs to that repository (a link with another name, `~/nb`, is resolved:
    the repository is the one the notebook really sits in)."""
    full = path.absolute()
    return full.parent.resolve() / full.name if full.name == NOTEBOOK_DIRNAME else full.resolve()


def _notebook_dir(path: Path) -> Path:
    """The `.errnote/` folder meant by a user-given path (the folder itself or the repository)."""
    if path.name == NOTEBOOK_DIRNAME:
        return path
    if (path / NOTEBOOK_DIRNAME).is_dir():
        return path / NOTEBOOK_DIRNAME
    if (path / ENTRIES_DIRNAME).is_dir() and (path / CONFIG_NAME).is_file():
        return path
    return path / NOTEBOOK_DIRNAME


def _repo_top(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds `.git` (a git work tree's top)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


#: The entry files' attribute line as `init` wrote it before entry files kept LF line ends.
_OLD_ATTRIBUTES = "entries/**/*.md merge=errnote"


def _upgrade_gitattributes(path: Path) -> bool:
    """Give an older notebook's `.gitattributes` today's line for entry files (`text eol=lf`, so a
    Windows clone never rewrites them whole); the file's other lines stay as they are."""
    from errnote.storage.files import atomic_write
    from errnote.storage.merge import GITATTRIBUTES_TEXT

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    lines = text.splitlines(keepends=True)
    new_line = next(line for line in GITATTRIBUTES_TEXT.splitlines() if line.startswith("entries/"))
    found = [i for i, line in enumerate(lines) if line.split() == _OLD_ATTRIBUTES.split()]
    if not found:
        return False
    for i in found:
        lines[i] = new_line + ("\r\n" if lines[i].endswith("\r\n") else "\n")
    atomic_write(path, "".join(lines))
    return True


def _not_a_file(folder: Path) -> None:
    """A file where the notebook folder belongs is in the way (`init` would fail too): say so."""
    if folder.exists() and not folder.is_dir():
        raise NotebookNotFound(
            f"{folder} is a file, not a notebook folder", "move it aside, then run 'errnote init'"
        )


def locate_root(start: str | Path | None = None, override: str | Path | None = None) -> Path:
    """The notebook folder: `override` (or `$ERRNOTE_DIR`), else walk up from `start` like git."""
    chosen = override if override else os.environ.get("ERRNOTE_DIR")
    if chosen:
        folder = _notebook_dir(unresolved_last(Path(chosen).expanduser()))
        _not_a_file(folder)
        if not folder.is_dir():
            inside = next((p for p in folder.parents if p.name == NOTEBOOK_DIRNAME and p.is_dir()), None)
            if inside is not None:  # a folder of a notebook (its entries/, a type folder)
                raise NotebookNotFound(
                    f"{chosen} is inside the notebook {inside}", f"name the notebook: --notebook {inside}"
                )
            raise NotebookNotFound(
                f"no notebook at {folder}", f"create one with: errnote --notebook {chosen} init"
            )
        return folder
    here = Path(start or Path.cwd()).expanduser().resolve()
    for parent in (here, *here.parents):
        candidate = parent / NOTEBOOK_DIRNAME
        if candidate.is_dir():
            return candidate
        _not_a_file(candidate)
    raise NotebookNotFound(
        f"no .errnote/ notebook in {here} or any folder above it",
        "run 'errnote init' at the top of your repository to create one",
    )


def init_root(where: str | Path | None = None, override: str | Path | None = None) -> tuple[Path, list[Path]]:
    """Create a notebook folder (at the top of the git work tree holding `where`); return it and
    what was made. On an existing notebook only what is missing is created, and an older
    `.gitattributes` is brought up to date (see `_upgrade_gitattributes`)."""
    chosen = override if override else os.environ.get("ERRNOTE_DIR")
    if chosen:
        root = _notebook_dir(unresolved_last(Path(chosen).expanduser()))
    else:
        here = Path(where or Path.cwd()).expanduser().resolve()
        root = (_repo_top(here) or here) / NOTEBOOK_DIRNAME
    made: list[Path] = []
    for folder in (root, root / ENTRIES_DIRNAME):
        if not folder.is_dir():
            folder.mkdir(parents=True)
            made.append(folder)
    from errnote.storage.files import atomic_write
    from errnote.storage.merge import GITATTRIBUTES_TEXT

    for path, text in (
        (root / CONFIG_NAME, DEFAULT_CONFIG_TEXT),
        (root / ".gitignore", GITIGNORE_TEXT),
        (root / ".gitattributes", GITATTRIBUTES_TEXT),
        (root / "README.md", NOTEBOOK_README),
        (root / ENTRIES_DIRNAME / ".gitkeep", ""),
    ):
        if not path.exists():
            atomic_write(path, text)
            made.append(path)
        elif path.name == ".gitattributes" and _upgrade_gitattributes(path):
            made.append(path)
    return root, made
