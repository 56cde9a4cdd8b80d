"""What `errnote search` answers and what the reading commands share, without typer: a search of
plain words (`errnote search --json -- WORDS`, the call agents and scripts make) is answered from
here with no typer or click loaded (`plain_search`, `answer_plain`), the typer command
(`commands/search.py`) calls the same `answer`; errors become one line as `ErrnoteGroup` says them."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from errnote.cli.output import emit_json, fail, say, warn
from errnote.errors import ErrnoteError, InvalidEntry, UsageError
from errnote.model.entry import EntryType
from errnote.model.timespec import resolve_now

if TYPE_CHECKING:
    from errnote.notebook import Notebook

#: `search --limit 0` (as `list --limit 0`): every hit that clears the threshold.
SEARCH_ALL = 100_000


# A NamedTuple, not a frozen dataclass: creating one costs every process about 1 ms.
class Plain(NamedTuple):
    """A command line of plain words `plain_command` found: `errnote [--notebook P] search [--json]
    [--] WORDS...` or `errnote [--notebook P] inject [--json]`."""

    command: str
    notebook: Path | None
    words: tuple[str, ...]
    as_json: bool


def plain_command(args: list[str]) -> Plain | None:
    """The plain `search` or `inject` of `args`, holding nothing else; None for any other command
    line, which typer reads (any other option, `-` for standard input, help, usage errors). No
    word starts with a dash, so click would read each as query text, and no option near miss is
    there to warn about."""
    if "_ERRNOTE_COMPLETE" in os.environ:  # shell completion asks typer
        return None
    at, notebook = 0, None
    if args[:1] == ["--notebook"]:
        if len(args) < 2 or not args[1] or args[1].startswith("-"):
            return None
        at, notebook = 2, args[1]
    command = args[at] if at < len(args) else ""
    words: list[str] = []
    as_json = ended = False
    for word in args[at + 1 :]:
        if word == "--json" and not ended:
            as_json = True
        elif word == "--" and not ended and command == "search":
            ended = True
        elif word.startswith("-") or command != "search":
            return None
        else:
            words.append(word)
    if command not in ("search", "inject") or (command == "search" and not words):
        return None
    if notebook is None:
        notebook = os.environ.get("ERRNOTE_DIR") or None  # `--notebook`'s variable (empty: unset)
    if notebook is not None and os.path.exists(notebook) and not os.access(notebook, os.R_OK):
        return None  # typer refuses an unreadable path in its own words
    return Plain(command, None if notebook is None else Path(notebook), tuple(words), as_json)


def answer_plain(plain: Plain) -> int:
    """The exit code of the command `plain_command` found, answered here as typer's would."""
    try:
        if plain.command == "inject":
            from errnote.prompt.selection import SECTIONS

            chosen = "json" if plain.as_json else "markdown"
            when = resolve_now(None)  # before the notebook, as `errnote inject` does
            nb = _notebook(plain.notebook)
            print_selection(nb, inject_options(nb, "", [], [], SECTIONS, chosen), when, chosen)
        else:
            nb = _notebook(plain.notebook)
            filters = filters_of(nb, None, None, None, None, None, None, 0.0, None, False, None)
            answer(nb, " ".join(plain.words), filters, None, json_=plain.as_json)
    except BaseException as exc:  # said as the typer command says it, or raised as it raises it
        code = reported(exc)
        if code is None:
            raise
        return code
    return 0


def _notebook(override: Path | None) -> Notebook:
    from errnote.notebook import Notebook

    return Notebook.locate(override=override)


def inject_options(
    nb: Any,
    text: str,
    paths: list[str],
    tools: list[str],
    sections: Collection[str],
    chosen: str,
    *,
    max_: int | None = None,
    budget: int | None = None,
    floor: float | None = None,
    recent_days: int | None = None,
    dated: bool = False,
) -> Any:
    """The selection options of `errnote inject`: the config's, with what the command line says."""
    from errnote.notebook.paths import repo_paths
    from errnote.prompt.selection import Options

    return Options.from_config(
        nb.config,
        query=text if "query" in sections else "",
        paths=repo_paths(paths, nb.repo_root) if "path" in sections else (),
        tools=tuple(tools) if "tool" in sections else (),
        always="always" in sections,
        recent="recent" in sections,
        max_per_section=max_,
        budget=budget,
        floor=floor,
        recent_days=recent_days,
        fmt=chosen,
        dated=dated,
    )


def print_selection(nb: Any, options: Any, when: Any, chosen: str) -> None:
    """What `errnote inject` prints (no `--write`): the entries that matter now, rendered."""
    from errnote.notebook.lineup import load_lineup
    from errnote.prompt.inject import select
    from errnote.prompt.render import render

    lineup, scan = load_lineup(nb.store)  # what selection reads of each entry, from one stat scan
    warn_problems(lineup.problems)
    warn_config(nb)
    selection = select(nb, options, when, scan=scan, beside=True, lineup=lineup)
    if not lineup.total and not selection.picked:
        empty = "The notebook is empty: nothing to inject yet ('errnote add --help' shows how to record one)."
        say(empty_notebook(lineup, empty))
        if chosen != "json":
            return
    if selection.dropped and chosen != "json":
        warn(f"{len(selection.dropped)} entries left out to fit the budget ({options.budget} characters)")
    sys.stdout.write(render(selection, chosen))


def answer(nb: Any, text: str, filters: Any, limit: int | None, *, json_: bool) -> None:
    """What `errnote search` prints for a query and its filters: hits of the notebook, its inbox and
    the notebooks read beside it; JSON or a table."""
    from errnote.search.searcher import search_with_report

    warn_config(nb)
    result = search_with_report(
        nb.store,
        text,
        filters=filters,
        limit=(nb.config.search_limit if limit is None else limit) or SEARCH_ALL,
    )
    report_sync(result.report)
    warn_problems(nb.store.skipped)  # links and unreadable folders the walk left out
    from errnote.notebook.inbox import with_inbox_hits

    hits, inboxed = with_inbox_hits(nb, text, filters, result.hits, limit)
    hits, origin = with_beside(nb, text, filters, hits, (nb.config.search_limit if limit is None else limit))
    if json_:
        emit_json(
            [
                {
                    **h.to_json(),
                    "notebook": origin.get(h.id, "repo"),
                    **({"unreviewed": True} if h.id in inboxed else {}),
                }
                for h in hits
            ]
        )
        return
    if not hits:
        say("No entry applies.")
        return
    from dataclasses import replace

    from errnote.cli.output import hit_table
    from errnote.search.query import bounded_query

    shown = [replace(h, title=f"[{origin[h.id]}] {h.title}") if h.id in origin else h for h in hits]
    hit_table(
        marked(shown, inboxed), bounded_query(text)
    )  # the text the search read (a log can be megabytes)


def reported(exc: BaseException) -> int | None:
    """A command's error said as one line on stderr, and its exit status; None for an exception
    that is not the user's to fix (a bug: its traceback is shown)."""
    if isinstance(exc, BrokenPipeError):
        # The reader went away (`errnote list | head`): nothing to report, nothing more to write.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    if isinstance(exc, ErrnoteError):
        fail(str(exc))
        return exc.exit_code
    if isinstance(exc, UnicodeEncodeError):
        if exc.encoding.lower().replace("-", "") == "utf8":  # a stray byte of the input (surrogate)
            fail("the input is not valid UTF-8 text; nothing was written")
        else:
            fail(f"the output cannot be shown in {exc.encoding}; set PYTHONIOENCODING=utf-8")
        return 1
    if isinstance(exc, UnicodeError):
        fail("the input is not valid UTF-8 text; nothing was written")
        return 1
    if isinstance(exc, OverflowError):
        fail("a number given is too large")
        return 2
    if isinstance(exc, OSError):
        # A file system refusal (permissions, full disk) is the user's to fix, not a crash.
        fail(_os_problem(exc))
        return 1
    if isinstance(exc, KeyboardInterrupt):
        fail("interrupted")
        return 130
    return None


def _os_problem(exc: OSError) -> str:
    """A file system refusal as one line: what happened, where, and what to do about it."""
    import errno

    where = f": {exc.filename}" if exc.filename else ""
    hint = {
        errno.EACCES: "check the permissions of that path",
        errno.EPERM: "check the permissions of that path",
        errno.ENOSPC: "free some disk space and run the command again",
        errno.EROFS: "the file system is read-only: run errnote where it can write",
        errno.EEXIST: "a file is in the way where errnote needs a folder: move it aside",
        errno.ENOTDIR: "a file is in the way where errnote needs a folder: move it aside",
        errno.EISDIR: "a folder is in the way where errnote needs a file: move it aside",
    }.get(exc.errno or 0, "")
    return f"{exc.strerror or exc}{where}" + (f" ({hint})" if hint else "")


def report_sync(report: Any) -> None:
    for notice in report.notices:
        say(f"errnote: {notice}")
    for _rel, problem in sorted(report.problems.items()):
        warn(f"skipped {problem}")


def marked(hits: list[Any], inboxed: set[str]) -> list[Any]:
    """Hits for the table, an inbox entry's title marked `[unreviewed]`."""
    from dataclasses import replace

    return [replace(h, title=f"[unreviewed] {h.title}") if h.id in inboxed else h for h in hits]


def with_beside(
    nb: Any, text: str, filters: Any, hits: list[Any], limit: int
) -> tuple[list[Any], dict[str, str]]:
    """The repository's hits and those of the notebooks read beside it (personal, extra), merged:
    what applies first, then by score, the repository's hit winning a tie; with each hit's notebook
    when it is not the repository's."""
    from errnote.notebook.sources import REPO, merge_hits, search_beside

    beside = search_beside(nb, text, filters=filters, limit=limit or SEARCH_ALL)
    if not beside:
        return hits, {}
    merged = merge_hits([(REPO, hits), *beside])[: limit or SEARCH_ALL]
    return [h for _name, h in merged], {h.id: name for name, h in merged if name != REPO}


def warn_unreadable(unreadable: Any) -> None:
    """`warn_problems` for (path, problem) pairs already masked (`lifecycle.stats.unreadable_files`)."""
    for path, problem in unreadable:
        warn(f"skipped {problem if path in problem else f'{path}: {problem}'}")


def warn_problems(problems: Any) -> None:
    """Name each entry file that could not be read, on stderr: the rest are still served."""
    for problem in problems:
        from errnote.redact.secrets import redact  # only for a problem: most calls have none

        text = (
            problem.message if str(problem.path) in problem.message else f"{problem.path}: {problem.message}"
        )
        warn(f"skipped {redact(text)}")  # a message may quote a value of the file


def warn_config(nb: Any) -> None:
    """Name each refused value of config.yaml (its default is used instead) and the keys that are
    no setting (a misspelt key would be ignored unseen)."""
    from errnote.config import SETTINGS

    for message in nb.config.warnings():
        warn(message)
    for key in nb.config.unknown:
        warn(f"{nb.root / 'config.yaml'}: {key} is not a setting, ignored (settings: {', '.join(SETTINGS)})")


@contextlib.contextmanager
def option_error(name: str) -> Iterator[None]:
    """Report a bad value given on the command line as a usage error (exit 2) naming the option."""
    try:
        yield
    except InvalidEntry as exc:
        message = exc.message if exc.message.startswith(name) else f"{name}: {exc.message}"
        raise UsageError(message, exc.hint) from None


def filters_of(
    nb: Notebook,
    types: list[str] | None,
    tags: list[str] | None,
    tools: list[str] | None,
    scope: str | None,
    paths: list[str] | None,
    since: str | None,
    min_confidence: float,
    status: list[str] | None,
    include_all: bool,
    limit: int | None,
) -> Any:
    """The filters of `search` and `list`, each bad value reported under its own option."""
    from errnote.model.timespec import parse_since
    from errnote.notebook.paths import repo_paths
    from errnote.search.filters import filter_values, make_filters, parse_statuses

    if not 0.0 <= min_confidence <= 1.0:
        raise UsageError("--min-confidence must be between 0 and 1")
    filter_values("scope", [] if scope is None else [scope])
    if limit is not None and limit < 0:
        raise UsageError(f"--limit must be 0 or more, not {limit}")
    with option_error("--type"):
        for t in filter_values("type", types or []):
            EntryType.parse(t)
    if include_all and status:
        raise UsageError("--all and --status disagree", "--all shows every status; give only one of them")
    statuses = status or ["active"]
    with option_error("--status"):
        parse_statuses(statuses)
    with option_error("--since"):
        when = parse_since(since) if since else None
    # A path as the user sees it (from here, or absolute), as the scopes see it: from the repository top.
    where: list[str] = []
    for path in filter_values("path", paths or []):
        seen = repo_paths([path], nb.repo_root)
        if not seen:
            raise UsageError(f"--path {path} is outside the repository {nb.repo_root}: no scope covers it")
        where.extend(seen)
    return make_filters(
        types=types or [], tags=tags or [], tool=tools or [], scope=scope or "", path=where,
        since=when, min_confidence=min_confidence, status=statuses, include_all=include_all,
    )  # fmt: skip


def empty_notebook(contents: Any, empty: str) -> str:
    """Why nothing was shown: an empty notebook (`empty` says so), or one whose every file is broken."""
    if not contents.problems:
        return empty
    count = len(contents.problems)
    return (
        f"No entry could be read: {count} entry file{'s are' if count > 1 else ' is'} broken (see above); "
        "repair one with 'errnote edit ID' or delete it with 'errnote rm --force ID'."
    )
