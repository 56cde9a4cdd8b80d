"""Finding entries: `search` (and how its query text is told from its options) and `reindex`."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from errnote.cli.context import (
    AllFilter,
    JsonOpt,
    MinConfidenceFilter,
    PathFilter,
    ScopeFilter,
    SinceFilter,
    StatusFilter,
    TagFilter,
    ToolFilter,
    TypeFilter,
    filters_of,
    notebook_of,
    read_stdin,
)
from errnote.cli.output import emit_json, say, warn
from errnote.cli.reading import answer, report_sync
from errnote.errors import ErrnoteError, UsageError

#: Options of `search` that take a value (the word after them is that value, whatever it looks like).
_SEARCH_VALUED = frozenset(
    {"--type", "--tag", "-t", "--tool", "--scope", "--path", "--since", "--min-confidence", "--status"}
    | {"--limit", "-n"}
)


#: The one-letter options of `search` (`-t TAG`, `-n N`, `-h`): any other word that starts with one
#: dash is query text (`-std=c++17`, `-lpthread`), which click would read as a cluster of letters.
_SEARCH_SHORT = frozenset("tnh")


def dash_query_last(args: list[str]) -> list[str]:
    """`errnote search "-p 5432 connection refused" --json`, `errnote search gcc -lpthread`: error
    text often starts with a dash. A dashed word with a space in it, or whose first letter is none
    of search's one-letter options, is never an option: it is moved after `--`, where it is query."""
    at = 0
    while at < len(args) and args[at].startswith("-"):  # the group's own options come first
        at += 2 if args[at] == "--notebook" else 1
    if at >= len(args) or args[at] != "search":
        return args
    end = args.index("--", at) if "--" in args[at:] else len(args)
    if any(a == "--notebook" or a.startswith("--notebook=") for a in args[at + 1 : end]):
        from typer._click.exceptions import NoSuchOption

        raise NoSuchOption("--notebook")  # reported as: --notebook goes before the command
    for i in range(at + 1, end):
        word = args[i]
        glued = len(word) > 2 and word[0] == "-" and word[1] in _SEARCH_SHORT and " " not in word
        if glued and args[i - 1] not in _SEARCH_VALUED and not (word[1] == "n" and word[2:].isdigit()):
            warn(f"{word} is read as -{word[1]} {word[2:]}: query text that starts so goes after '--'")
    dashed = [
        i
        for i in range(at + 1, end)
        if args[i].startswith("-")
        and not args[i].startswith("--")
        and len(args[i]) > 1
        and (any(c.isspace() for c in args[i]) or args[i][1] not in _SEARCH_SHORT)
        and args[i - 1] not in _SEARCH_VALUED
    ]
    rest = [a for i, a in enumerate(args[:end]) if i not in set(dashed)]
    if not dashed or rest[-1] in _SEARCH_VALUED:  # `-t` left without its value: click says so
        return args
    return [*rest, "--", *[args[i] for i in dashed], *args[end + 1 :]]


# --- search / reindex -----------------------------------------------------------------------


def _warn_near_options(ctx: typer.Context, words: list[str]) -> None:
    """Say so when a query word is a near miss of an option (`--limt`): it is searched, not obeyed."""
    import difflib

    names = [o for p in ctx.command.params for o in p.opts if o.startswith("--")]
    for word in words:
        if word.startswith("--") and word not in names:
            near = difflib.get_close_matches(word.split("=")[0], names, n=1, cutoff=0.75)
            if near:
                warn(f"{word} is not an option of search (did you mean {near[0]}?): searched as query text")


def search(
    ctx: typer.Context,
    query: Annotated[
        list[str],
        typer.Argument(
            metavar="QUERY...",
            help="Any text: a question, a task, an error message or a whole stack trace, quoted or not "
            "('-' reads it from standard input). Words that look like options and are not options of "
            "search are searched too (-std=c++17, --all-features); one that starts like -t, -n or -h "
            "goes after '--'.",
        ),
    ],
    type: TypeFilter = None,
    tag: TagFilter = None,
    tool: ToolFilter = None,
    scope: ScopeFilter = None,
    path: PathFilter = None,
    since: SinceFilter = None,
    min_confidence: MinConfidenceFilter = 0.0,
    status: StatusFilter = None,
    all_: AllFilter = False,
    limit: Annotated[
        Optional[int],
        typer.Option("--limit", "-n", help="At most this many hits (default 10; 0: every hit that applies)."),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Find the entries that apply to a situation, best first; nothing when nothing applies.

    The query is read as natural language or pasted output: quotes, AND/OR/NOT, brackets and
    stack traces are all fine. Ranking blends the text match (title, tags and tool, error text
    above the rest, x type x confidence x freshness) with closeness in meaning from a local
    sentence-embedding model (also across languages; ERRNOTE_SEMANTIC=0 ranks by words only).
    Hits that apply come first ("applies": true in --json): the query quotes the entry's
    recorded error, or it matches the entry's words and meaning. Related hits follow, marked
    (related) ("applies": false); they are never put into a prompt as rules. Superseded and
    retired entries are left out unless --all.

    \b
    Examples:
      errnote search "cargo build --all-features fails in openssl-sys"
      pytest 2>&1 | tail -30 | errnote search -       # a pasted traceback
      errnote search migration --type lesson --json
    """
    nb = notebook_of(ctx)
    filters = filters_of(nb, type, tag, tool, scope, path, since, min_confidence, status, all_, limit)
    _warn_near_options(ctx, query)
    text = " ".join(query)
    if query == ["-"]:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("the query is '-' but nothing is piped to standard input")
        text = read_stdin("the query", replace=True)
    answer(nb, text, filters, limit, json_=json_)


def reindex(
    ctx: typer.Context,
    vectors: Annotated[
        bool,
        typer.Option(
            "--vectors",
            help="Only compute the entry vectors that are missing (what a hook leaves to the background).",
        ),
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Rebuild the search index and the entry vectors from the entry files (built aside, then
    swapped in).

    Rarely needed: every read command already syncs the index with the files. Also removes the
    temporary files (older than an hour) that writes killed midway left below entries/.

    \b
    Example:
      errnote reindex
    """
    from errnote.search.index import Index
    from errnote.search.searcher import rebuild_vectors

    started = __import__("time").perf_counter()
    nb = notebook_of(ctx)
    if vectors:
        done, why = rebuild_vectors(nb.store, missing_only=True)
        if why:
            warn(why)
        if json_:
            emit_json({"embedded": done, "seconds": round(__import__("time").perf_counter() - started, 3)})
        else:
            say(f"Embedded {done} entry texts.")
        return
    report = Index(nb.store).sync(rebuild=True, timeout=30.0)
    embedded, why = (0, "") if report.stale or report.unwritable else rebuild_vectors(nb.store)
    if why:
        report.notices.append(why)
    seconds = __import__("time").perf_counter() - started
    if report.unwritable:
        raise ErrnoteError(
            f"cannot write the search index in {nb.store.cache_dir}: {report.unwritable}",
            "make the folder writable (searches still work, reading the entry files directly)",
        )
    if report.stale:
        raise ErrnoteError("the index is locked by another errnote process", "try again in a moment")
    leftovers = nb.store.clear_leftovers()
    if json_:
        emit_json(
            {
                "indexed": report.added,
                "embedded": embedded,
                "problems": report.problems,
                "seconds": round(seconds, 3),
                "removed_temp_files": [str(p) for p in leftovers],
            }
        )
        return
    report_sync(report)
    say(f"Indexed {report.added} entries in {seconds:.2f} s.")
    if leftovers:
        say(f"Removed {len(leftovers)} temporary file(s) left by interrupted writes.")
