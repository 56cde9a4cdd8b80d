"""`errnote log`, `trace`, `changes`, `resolve` and `merge-entry`: the notebook's git history and
merges, for a team that keeps it in the repository (the work is done in errnote.team)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import typer

from errnote.cli.context import JsonOpt, notebook_of, warn_problems
from errnote.cli.output import console, emit_json, say, warn
from errnote.errors import UsageError
from errnote.text import escape_invisible, strip_controls


def _line(text: str) -> None:
    sys.stdout.write(escape_invisible(strip_controls(text)) + "\n")


def _short(commit: str) -> str:
    return commit[:10] if commit else "(work tree)"


def log(
    ctx: typer.Context,
    id: Annotated[str, typer.Argument(metavar="ID", help="The entry (an id or a unique prefix).")],
    json_out: JsonOpt = False,
) -> None:
    """The git history of one entry's file, renames followed, oldest first: who changed it, in
    which commit, and what changed (confidence 0.6 -> 0.7, status, scope widened, title changed).
    A version not committed yet comes last. Needs git and the notebook committed in a repository.

    \b
    Example:
      errnote log 3f2a1b
      errnote log 3f2a1b --json
    """
    from errnote.team.git import repo_of
    from errnote.team.log import entry_log

    nb = notebook_of(ctx)
    entry, path = nb.locate_entry(id)
    repo = repo_of(nb.root, nb.store.entries_dir)
    revisions = entry_log(repo, path)
    if json_out:
        emit_json({"id": entry.id, "title": entry.title, "revisions": [r.as_json() for r in revisions]})
        return
    _line(f"{entry.id}  {entry.title}")
    if not revisions:
        _line("  (never committed: 'git add' and commit the notebook to give it a history)")
    for rev in revisions:
        what = "; ".join(rev.changes) if not rev.problem else f"unreadable: {rev.problem}"
        who = f"  {rev.author}" if rev.author else ""
        _line(f"  {rev.date[:10] or '-':10}  {_short(rev.commit)}{who}  {what}")
        if rev.commit:
            _line(f"      {rev.subject}")


def _label(step: Any) -> Any:
    from rich.text import Text

    label = Text()
    if step.relation:
        label.append(f"{step.relation} ", style="dim")
    if step.entry is None:
        label.append(f"{step.id} (no longer in the notebook)", style="red")
        return label
    entry = step.entry
    label.append(f"{entry.type.value} {entry.id}  ", style="bold")
    label.append(escape_invisible(strip_controls(entry.title)))
    if entry.status.value != "active":
        label.append(f"  [{entry.status.value}]", style="yellow")
    if entry.contradicted:
        label.append(f"  contradicted {entry.contradicted}x", style="yellow")
    if step.repeated:
        label.append("  (shown above)", style="dim")
        return label
    origin = step.origin
    if origin is not None and origin.commit:
        label.append(f"  {origin.date[:10]} {origin.commit[:10]} {origin.author}", style="dim")
    elif origin is not None:
        label.append(f"  {origin.date[:10]} not committed yet", style="dim")
    return label


def trace(
    ctx: typer.Context,
    id: Annotated[str, typer.Argument(metavar="ID", help="The entry (an id or a unique prefix).")],
    json_out: JsonOpt = False,
) -> None:
    """Where an entry came from: its links followed back in time (a lesson to the correction and
    the mistake it was drawn from, the versions it superseded, what contradicted it), each step
    with the date, commit and author that first recorded it. The answer to "when did we learn
    this, and from what?". Needs git and the notebook committed in a repository.

    \b
    Example:
      errnote trace 3f2a1b
      errnote trace 3f2a1b --json
    """
    from errnote.team.git import repo_of
    from errnote.team.log import first_commit
    from errnote.team.trace import Origin
    from errnote.team.trace import trace as trace_of

    nb = notebook_of(ctx)
    entry, _ = nb.locate_entry(id)
    repo = repo_of(nb.root, nb.store.entries_dir)
    contents = nb.load()
    warn_problems(contents.problems)

    # Which entries the trace reaches, then the commit that created each, asked of git in parallel
    # (one `git log --follow` each, 0.4 s on a long history).
    reached: dict[str, Any] = {}

    def reach(e: Any) -> Origin:
        reached[e.id] = e
        return Origin("", "", "")

    trace_of(contents, entry.id, reach)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(lambda eid: first_commit(repo, contents.paths[eid]), reached))
    firsts = dict(zip(reached, found, strict=True))

    def origin(e: Any) -> Origin:
        from errnote.model.timespec import iso
        from errnote.redact.secrets import redact

        first = firsts[e.id]
        if first is None:
            return Origin("", e.provenance.author, iso(e.provenance.created))
        return Origin(first.commit, redact(first.author), first.date)

    root = trace_of(contents, entry.id, origin)
    if json_out:
        emit_json(root.as_json())
        return
    from rich.tree import Tree

    tree = Tree(_label(root))

    def grow(node: Any, step: Any) -> None:
        for child in step.children:
            grow(node.add(_label(child)), child)

    grow(tree, root)
    out = console()
    # Piped (to a file, a pager, an agent): one line a step, never cut at rich's default 80 columns.
    if not out.is_terminal:
        out.width = 100_000
    out.print(tree)


CHANGE_FORMATS = ("text", "markdown", "json")


def _complete_change_formats(incomplete: str) -> list[str]:
    return [f for f in CHANGE_FORMATS if f.startswith(incomplete.lower())]


def changes(
    ctx: typer.Context,
    ref: Annotated[
        Optional[str],
        typer.Argument(
            metavar="[REF]",
            help="The commit to compare with: a branch, tag or commit (default: the merge base of HEAD "
            "with the default branch, origin's HEAD or else main or master).",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="text, markdown (for a pull-request description) or json.",
            autocompletion=_complete_change_formats,
        ),
    ] = "text",
    json_out: JsonOpt = False,
) -> None:
    """What changed in the notebook since REF, the work tree included: entries added, changed,
    superseded, retired or removed, grouped, with what changed in each. '--format markdown' is
    ready to paste into a pull request ("This change teaches the agent 2 lessons and retires
    1 entry."). Needs git and the notebook in a repository.

    \b
    Examples:
      errnote changes
      errnote changes v1.2 --json
      errnote changes main --format markdown | gh pr edit --body-file -
    """
    from errnote.errors import UsageError
    from errnote.team.changes import HEADINGS, KINDS, changes_since, summary_sentence, to_markdown
    from errnote.team.git import repo_of

    chosen = "json" if json_out else fmt.strip().lower()
    if chosen not in CHANGE_FORMATS:
        raise UsageError(f"--format: unknown format {fmt!r}", f"use one of: {', '.join(CHANGE_FORMATS)}")
    nb = notebook_of(ctx)
    repo = repo_of(nb.root, nb.store.entries_dir)
    contents = nb.load()
    warn_problems(contents.problems)
    found = changes_since(repo, contents, nb.store.entries_dir, ref)
    for problem in found.unreadable:
        warn(f"skipped at the base: {problem}")
    if chosen == "json":
        emit_json(found.as_json())
        return
    if chosen == "markdown":
        sys.stdout.write(to_markdown(found))
        return
    _line(f"Since {found.ref} ({found.base[:10]}): {summary_sentence(found)}")
    for kind in KINDS:
        group = found.of(kind)
        if group:
            _line(f"{HEADINGS[kind]} ({len(group)})")
        for item in group:
            e = item.entry
            _line(f"  {e.type.value} {e.id}  {e.title}  ({'; '.join(item.changes)})")


def resolve(
    ctx: typer.Context,
    id: Annotated[str, typer.Argument(metavar="ID", help="The conflicted entry (an id or a unique prefix).")],
    ours: Annotated[bool, typer.Option("--ours", help="Keep this branch's side of each conflict.")] = False,
    theirs: Annotated[bool, typer.Option("--theirs", help="Keep the merged branch's side.")] = False,
    edit: Annotated[
        bool, typer.Option("--edit", help="Settle it in $VISUAL or $EDITOR ('errnote edit').")
    ] = False,
) -> None:
    """Settle the conflict markers a merge left in one entry file: --ours or --theirs takes that
    side of every conflicting field (what the merge driver merged cleanly stays), --edit opens the
    file in your editor. The result is checked before it replaces the file, and in a merge in
    progress the file is marked resolved ('git add').

    \b
    Examples:
      errnote resolve 3f2a1b --theirs
      errnote resolve 3f2a1b --edit
    """
    from errnote.errors import ErrnoteError, UsageError
    from errnote.redact.entry import redact_entry
    from errnote.storage.frontmatter import has_conflict_markers, parse_entry
    from errnote.team.resolve import take_side

    if ours + theirs + edit != 1:
        raise UsageError("give one of --ours, --theirs or --edit")
    nb = notebook_of(ctx)
    path = nb.broken_file(id)
    if path is None:
        entry, _ = nb.locate_entry(id)  # no such entry: that error; else it reads fine
        raise ErrnoteError(f"{entry.id} has no conflict to resolve", "it reads as a valid entry")
    text = path.read_text(encoding="utf-8", errors="replace")
    if not has_conflict_markers(text):
        raise ErrnoteError(
            f"{path}: the file holds no conflict markers", f"repair it with: errnote edit {id}"
        )
    if edit:
        command = ctx.find_root().command.get_command(ctx, "edit")  # type: ignore[attr-defined]
        ctx.invoke(command.callback, ctx=ctx, id=id)
        settled_text = path.read_text(encoding="utf-8", errors="replace")
        if has_conflict_markers(settled_text):
            raise ErrnoteError(f"{path}: conflict markers remain", f"run: errnote resolve {id} --edit")
    else:
        settled_text, count = take_side(text, "ours" if ours else "theirs")
        entry = redact_entry(parse_entry(settled_text, path))  # refused, file untouched, if invalid
        with nb.store.lock():
            nb.store.replace(path, entry, written=settled_text)
        plural = "s" if count != 1 else ""
        say(f"Resolved {count} conflict{plural} in {path.name} with {'ours' if ours else 'theirs'}.")
    _mark_resolved(nb, path)


def _mark_resolved(nb: Any, path: Any) -> None:
    """`git add` the file when git lists it as unmerged (a merge, rebase or cherry-pick stopped)."""
    from errnote.errors import ErrnoteError
    from errnote.team.git import repo_of

    try:
        repo = repo_of(nb.root, nb.store.entries_dir)
        rel = path.resolve().relative_to(repo.top.resolve()).as_posix()
        if repo.run("ls-files", "-u", "--", rel).strip():
            repo.run("add", "--", rel)
            say(f"Marked {rel} resolved in git.")
    except ErrnoteError:
        return  # no git here: the file is settled, and that is all there is to do


def merge_entry(
    base: Annotated[Path, typer.Argument(metavar="BASE", help="The common ancestor's version (git's %O).")],
    ours: Annotated[
        Path, typer.Argument(metavar="OURS", help="Our version, replaced by the result (git's %A).")
    ],
    theirs: Annotated[Path, typer.Argument(metavar="THEIRS", help="Their version (git's %B).")],
    marker_size: Annotated[int, typer.Option("--marker-size", help="Conflict marker length (git's %L).")] = 7,
    favor: Annotated[
        Optional[str],
        typer.Option(
            "--favor",
            help="Settle clashes for 'ours' or 'theirs' ('none': leave markers). Default: what the git "
            "command running the driver was given with -X ours / -X theirs.",
        ),
    ] = None,
) -> None:
    """Git merge driver for entry files: merges two versions field by field (set up by 'errnote init').

    git's line merge first, with both `updated` lines set to the later time; when lines clash, a
    field changed on one side is taken from that side, tags, scope and links merge as sets,
    confirmations made on each side add up, and the body merges line by line. Fields both sides
    changed differently get git's conflict markers (exit code 3).
    """
    from errnote.storage.merge import CONFLICT_EXIT, MergeOptions, favoured_side, merge_files

    sides: dict[str | None, Literal["", "ours", "theirs"]] = {"ours": "ours", "theirs": "theirs", "none": ""}
    if favor is not None and favor not in sides:
        raise UsageError(f"--favor {favor!r} is not one of ours, theirs, none")
    side = favoured_side() if favor is None else sides[favor]
    result = merge_files(base, ours, theirs, MergeOptions(marker_size, side))
    if result.conflicted:
        changed = ", ".join(result.fields) or "the file"
        warn(f"both sides changed {changed} differently: resolve the conflict markers in the entry file")
        raise typer.Exit(CONFLICT_EXIT)
