"""How the CLI prints: JSON for machines, rich text for people (rich imported only when needed)."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from errnote.model.entry import Entry


def emit_json(data: Any) -> None:
    """Print JSON on stdout (no colour, no wrapping), one document per command."""
    encoding = str(getattr(sys.stdout, "encoding", "") or "utf-8").lower().replace("-", "")
    # ASCII escapes when stdout is not UTF-8: the same JSON, and no character lost.
    from errnote.text import escape_invisible_json

    dumped = indented_json(data, ascii_only=encoding != "utf8")
    sys.stdout.write(escape_invisible_json(dumped) + "\n")  # no bidi override reaches a terminal raw


class _NotPlain(Exception):
    """A value `indented_json` leaves to `json.dumps` (a key that is not a string, an object)."""


def indented_json(data: Any, *, ascii_only: bool) -> str:
    """`json.dumps(data, ensure_ascii=ascii_only, indent=2)`, the same text, written by one plain
    walk: with an indent `json` leaves its C encoder for generators in Python, about a third of
    `list --json` at 10,000 entries. Anything but JSON's own types goes to `json.dumps`."""
    from json.encoder import encode_basestring, encode_basestring_ascii

    quote = encode_basestring_ascii if ascii_only else encode_basestring

    def text(value: Any, indent: str) -> str:
        # Each container joined on its own: a few large strings held, not millions of small ones.
        if isinstance(value, str):
            return quote(value)
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, int):
            return int.__repr__(value)
        if isinstance(value, float):
            return _float_json(value)
        inner = indent + "  "
        if isinstance(value, dict):
            if not value:
                return "{}"
            if not all(isinstance(key, str) for key in value):
                raise _NotPlain
            items = [f"{quote(key)}: {text(item, inner)}" for key, item in value.items()]
            return f"{{\n{inner}" + f",\n{inner}".join(items) + f"\n{indent}}}"
        if isinstance(value, (list, tuple)):
            if not value:
                return "[]"
            items = [text(item, inner) for item in value]
            return f"[\n{inner}" + f",\n{inner}".join(items) + f"\n{indent}]"
        raise _NotPlain

    try:
        return text(data, "")
    except (_NotPlain, RecursionError):
        return json.dumps(data, ensure_ascii=ascii_only, indent=2)


def _float_json(value: float) -> str:
    """A float as `json` writes it (`NaN` and `Infinity` are allowed, as `json.dumps` allows them)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    # NO_COLOR: no escape codes at all (rich alone would still send bold and dim).
    plain = bool(os.environ.get("NO_COLOR"))
    return Console(stderr=stderr, highlight=False, soft_wrap=False, color_system=None if plain else "auto")


def say(message: str, *, markup: bool = False) -> None:
    """A short human message on stderr (kept off stdout so pipes get only data). Plain text unless
    `markup`: paths and titles hold brackets (`[draft]/CLAUDE.md`) that rich would read as tags."""
    if not markup and _plain(message, ""):
        return
    console(stderr=True).print(message, soft_wrap=True, markup=markup, highlight=False)


def fail(message: str) -> None:
    """The one-line error format: `errnote: error: ...` on stderr."""
    if _plain(message, "errnote: error: "):
        return
    from rich.markup import escape

    console(stderr=True).print(f"[bold red]errnote: error:[/] {escape(message)}", soft_wrap=True)


def _plain(message: str, prefix: str) -> bool:
    """Write `prefix + message` on stderr as it is, when that is what rich would print (no colour:
    not a terminal, nothing forcing one; no markup, emoji code, control character or line break
    in the message), and say whether it did: a warning or an error from a hook, a pipe or a
    script then costs no import of rich (about 30 ms)."""
    stream = sys.stderr
    if stream is None or "FORCE_COLOR" in os.environ or "TTY_COMPATIBLE" in os.environ:
        return False
    if not message.isprintable() or "[" in message or "]" in message or message.endswith("\\"):
        return False  # (rich's `escape` doubles a last backslash, and that is what it prints)
    if any(" " not in between for between in message.split(":")[1:-1]):  # `:name:` may be an emoji
        return False
    try:
        if stream.isatty():
            return False
    except ValueError:  # closed: rich says "no terminal" too, and fails writing as this does
        pass
    stream.write(f"{prefix}{message}\n")
    stream.flush()
    return True


def age(stamp: datetime, now: datetime | None = None) -> str:
    """A short human age: `3m`, `5h`, `2d`, `7w`, `1y`, from `$ERRNOTE_NOW` when it is set (as
    `inject` and staleness read it), so a listing can be reproduced."""
    from errnote.model.staleness import clock

    seconds = ((now or clock()) - stamp).total_seconds()
    seconds = max(seconds, 0)
    for unit, size in (("y", 365 * 86400), ("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return "now"


TYPE_STYLE = {
    "mistake": "red",
    "correction": "yellow",
    "lesson": "green",
    "confirmation": "cyan",
    "preference": "magenta",
    "convention": "blue",
    "tool-quirk": "bright_yellow",
    "insight": "white",
}


#: Below this many columns for the title, a table row becomes a block: the facts on one line, the
#: title wrapped under them (a narrow terminal must not drop the title column).
NARROW_TITLE = 24


def _cells(text: str) -> str:
    """One cell of a piped row: one line, no tab (a tab separates the cells)."""
    return " ".join(text.replace("\t", " ").split())


def _rows(rows: list[list[str]]) -> None:
    """Rows for a pipe: one line each, cells separated by tabs, nothing wrapped or padded (`errnote
    list | grep X` finds the whole line, `cut -f1` the ids)."""
    sys.stdout.write("".join("\t".join(_cells(c) for c in row).rstrip() + "\n" for row in rows))


def _blocks(
    out: Console, header: list[str], facts: list[list[str]], texts: list[list[str]], widths: list[int]
) -> None:
    """A narrow terminal: per entry its facts on one line (each column as wide as its widest
    value) and its texts wrapped under it, indented, so no column is dropped."""
    import textwrap

    from rich.markup import escape

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    width = max(out.width - 2, 10)
    out.print(f"[bold]{escape(line(header))}[/]", soft_wrap=True)
    out.print("[bold]  title[/]", soft_wrap=True)
    for cells, lines in zip(facts, texts, strict=True):
        out.print(escape(line(cells)), soft_wrap=True)
        for text in lines:
            for part in textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False):
                out.print(f"  {escape(part)}", soft_wrap=True)


def _fixed_width(rows: list[list[str]], header: list[str]) -> list[int]:
    return [max(len(c) for c in column) for column in zip(header, *rows, strict=True)]


def entry_table(entries: list[Entry], title: str | None = None) -> None:
    from rich.markup import escape
    from rich.table import Table

    from errnote.text import escape_invisible

    facts = [
        [e.id, e.type.value, f"{e.confidence:.2f}", e.status.value, age(e.provenance.created)]
        for e in entries
    ]
    titles = [escape_invisible(e.title) for e in entries]
    out = console()
    if not out.is_terminal:
        _rows([[f[0], f[1], t, *f[2:]] for f, t in zip(facts, titles, strict=True)])
        return
    header = ["id", "type", "conf", "status", "age"]
    widths = _fixed_width(facts, header)
    if out.width - sum(widths) - 2 * len(widths) < NARROW_TITLE:
        _blocks(out, header, facts, [[t] for t in titles], widths)
        return
    table = Table(title=title, box=None, header_style="bold", pad_edge=False)
    table.add_column("id", no_wrap=True, min_width=10)  # an id cut short names nothing
    table.add_column("type", no_wrap=True)
    table.add_column("title", overflow="fold")
    table.add_column("conf", justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("age", justify="right", no_wrap=True)
    for e, (eid, kind, conf, status, when), text in zip(entries, facts, titles, strict=True):
        table.add_row(
            eid, f"[{TYPE_STYLE.get(e.type.value, 'white')}]{kind}[/]", escape(text), conf, status, when
        )
    out.print(table)


def _highlight(text: str, wanted: set[str]) -> str:
    """Escape `text` for rich and embolden what the search matched in it (`wanted`, index terms):
    the words whose terms are among them (`borrowing` for `borrow`), and the characters of the CJK
    pairs among them (数据库 in 备份数据库)."""
    import re

    from rich.markup import escape

    from errnote.search.analysis import analyze, is_cjk

    if not wanted:
        return escape(text)
    marked = [False] * len(text)
    for m in re.finditer(r"\w+(?:[-.:/']\w+)*", text):
        # A word of mixed scripts (数据库backup失败): each CJK run by its pairs, the rest by its terms.
        for _cjk, offset, word in _runs(m.group(), [is_cjk(c) for c in m.group()]):
            start = m.start() + offset
            if is_cjk(word[0]):
                for i in range(len(word) - 1):
                    if word[i : i + 2] in wanted:
                        marked[start + i] = marked[start + i + 1] = True
            elif wanted.intersection(analyze(word)):
                marked[start : start + len(word)] = [True] * len(word)
    out: list[str] = []
    for bold, _offset, run in _runs(text, marked):
        out.append(f"[bold yellow]{escape(run)}[/]" if bold else escape(run))
    return "".join(out)


def _runs(text: str, keys: list[bool]) -> list[tuple[bool, int, str]]:
    """`text` cut where `keys` (one a character) changes: (key, offset, run) triples."""
    import itertools

    runs: list[tuple[bool, int, str]] = []
    offset = 0
    for key, group in itertools.groupby(zip(keys, text, strict=True), key=lambda pair: pair[0]):
        run = "".join(c for _k, c in group)
        runs.append((key, offset, run))
        offset += len(run)
    return runs


def hit_table(hits: list[Any], query: str) -> None:
    from rich.table import Table

    from errnote.text import escape_invisible

    out = console()
    notes = [
        (f" ({h.status})" if getattr(h, "status", "active") != "active" else "")
        + (" (related)" if not getattr(h, "applies", True) else "")
        for h in hits
    ]
    fragments = [escape_invisible(" ".join((h.fix or h.snippet or h.reason).split())[:160]) for h in hits]
    titles = [escape_invisible(h.title) for h in hits]
    facts = [[h.id, h.type, f"{h.confidence:.2f}", age(h.created)] for h in hits]
    near_note = "(related): close to the query, not shown to apply; never injected as a rule"
    near = not all(getattr(h, "applies", True) for h in hits)
    if not out.is_terminal:
        rows = [
            [f[0], f[1], t + n, f[2], f[3], x]
            for f, t, n, x in zip(facts, titles, notes, fragments, strict=True)
        ]
        _rows(rows)
        if near:
            console(stderr=True).print(near_note, soft_wrap=True, markup=False, highlight=False)
        return
    header = ["id", "type", "conf", "age"]
    widths = _fixed_width(facts, header)
    if out.width - sum(widths) - 2 * len(widths) < NARROW_TITLE:
        texts = [[t + n, x] if x else [t + n] for t, n, x in zip(titles, notes, fragments, strict=True)]
        _blocks(out, header, facts, texts, widths)
        if near:
            out.print(f"[dim]{near_note}[/]")
        return
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("id", no_wrap=True, min_width=10)  # an id cut short names nothing
    table.add_column("type", no_wrap=True)
    table.add_column("title / fragment", overflow="fold")
    table.add_column("conf", justify="right", no_wrap=True)
    table.add_column("age", justify="right", no_wrap=True)
    from errnote.search.analysis import analyze

    asked = set(analyze(query))  # once: a pasted log can be megabytes
    for h, text, fragment in zip(hits, titles, fragments, strict=True):
        wanted = asked | {t for phrase in h.matched for t in phrase.split()}
        cell = _highlight(text, wanted)
        if getattr(h, "status", "active") != "active":
            cell += f" [magenta]({h.status})[/]"  # only `--all` or `--status` shows these
        if not getattr(h, "applies", True):
            cell += " [dim italic](related)[/]"
        if fragment:
            cell += "\n[dim]" + _highlight(fragment, wanted) + "[/]"
        table.add_row(
            h.id,
            f"[{TYPE_STYLE.get(h.type, 'white')}]{h.type}[/]",
            cell,
            f"{h.confidence:.2f}",
            age(h.created),
        )
    out.print(table)
    if near:
        out.print(f"[dim]{near_note}[/]")


def warn(message: str) -> None:
    """A one-line warning on stderr: something was skipped, the command still did its job."""
    if _plain(message, "errnote: warning: "):
        return
    from rich.markup import escape

    console(stderr=True).print(f"[yellow]errnote: warning:[/] {escape(message)}", soft_wrap=True)


def esc(text: str) -> str:
    """`text` with rich markup escaped, for a message printed with markup."""
    from rich.markup import escape

    return escape(text)
