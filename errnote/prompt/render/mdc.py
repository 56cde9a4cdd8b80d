"""The mdc format: a Cursor rule file (front-matter, then errnote's markdown block)."""

from __future__ import annotations

from errnote.prompt.block import wrap_block
from errnote.prompt.render.markdown import render_markdown
from errnote.prompt.selection import Selection

_MDC_DESCRIPTION = "Rules, conventions and recent failures recorded in this repository's errnote notebook"


def mdc_front_matter(selection: Selection) -> tuple[str, bool]:
    """Cursor's `globs` (a comma-separated string) and `alwaysApply` (a real boolean) for a selection.

    The rule applies always unless every selected entry is limited to paths; then it attaches to
    those paths' globs only (written out as Cursor reads globs, see `cursor_globs`). A rule with no
    entry applies nowhere: in every request it would be noise.
    """
    globs: dict[str, None] = {}
    for p in selection.picked:
        scoped = p.entry.scope.paths()
        if not scoped:
            return "", True
        for pattern in scoped:
            globs.update(dict.fromkeys(cursor_globs(pattern)))
    return ",".join(sorted(globs)), False


def cursor_globs(pattern: str) -> list[str]:
    """A `path:` scope glob as explicit globs from the workspace root: errnote reads `docs` and
    `*.py` at any depth and a folder as everything below it (`errnote.model.path_matches`); a
    Cursor rule's globs say so outright (`**/docs`, `**/docs/**`)."""
    pat = pattern.strip().replace("\\", "/").removeprefix("./")
    anchored = "/" in pat.rstrip("/")
    pat = pat.strip("/")
    if not pat:
        return ["**"]
    if not anchored and not pat.startswith("**"):
        pat = f"**/{pat}"
    if pat.rsplit("/", 1)[-1] == "**":
        return [pat]  # already everything below
    # A file of that name, or a folder (`.github`, `src/*`, `docs/v1.2`) and all below it.
    return [pat, f"{pat}/**"]


def render_mdc(selection: Selection, *, dated: bool = False) -> str:
    """A Cursor rule file: front-matter (`description`, `globs`, `alwaysApply`), then the markdown.

    With no entry, no description either: Cursor then loads the rule only when asked for by name
    (a description would let the agent pull in an empty rule)."""
    globs, always = mdc_front_matter(selection)
    # `alwaysApply` must be the YAML boolean: Cursor reads the string "true" as false.
    description = _MDC_DESCRIPTION if selection.picked else ""
    head = [
        "---",
        f"description: {description}".rstrip(),
        f"globs: {globs}".rstrip(),
        f"alwaysApply: {str(always).lower()}",
    ]
    return "\n".join([*head, "---", wrap_block(render_markdown(selection, dated=dated)).rstrip("\n")]) + "\n"
