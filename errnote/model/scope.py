"""Where an entry applies: scope items (`repo`, `path:<glob>`, `tool:<name>`, `!` to exclude) and
the glob matching of repository paths."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from errnote.errors import InvalidEntry
from errnote.text import clean_text, nfc, same_name

#: What a scope item names: the whole repository, everywhere, a path glob, a tool, or free text.
ScopeKind = Literal["repo", "global", "path", "tool", "text"]


@dataclass(frozen=True)
class ScopeItem:
    """One machine-readable piece of an entry's scope.

    `repo`, `global`, `path:<glob>`, `tool:<name>`; a leading `!` excludes (`!path:vendor/**`);
    anything else is free text that tells a reader where the entry applies.
    """

    kind: ScopeKind
    value: str = ""
    negated: bool = False

    @classmethod
    def parse(cls, raw: str) -> ScopeItem:
        text = clean_text(raw, "scope", one_line=True)
        negated = text.startswith("!")
        if negated:
            text = text[1:].strip()
        if not text:
            raise InvalidEntry(f"scope {raw!r} is empty", "e.g. repo, global, path:src/**, !path:vendor/**")
        low = text.lower()
        if low == "repo" or low == "global":
            return cls("repo" if low == "repo" else "global", "", negated)
        kinds: tuple[ScopeKind, ...] = ("path", "tool")
        for kind in kinds:
            if low.startswith(kind + ":"):
                value = text[len(kind) + 1 :].strip()
                if not value:
                    raise InvalidEntry(f"scope {raw!r} names no {kind}", f"write it as {kind}:VALUE")
                return cls(kind, value, negated)
        return cls("text", text, negated)

    @classmethod
    def parse_given(cls, raw: str) -> ScopeItem:
        """A scope item given now (an option, an API or MCP argument): as `parse` reads it, and
        refused when it reads like a kind errnote does not know (`paths:src/**`, `glob:*.py`).
        Free text makes an entry apply everywhere, so a misspelt kind would widen it unseen.
        Files already written are read as they are (`errnote lint` warns: `scope-kind`)."""
        item = cls.parse(raw)
        name = unknown_kind(item)
        if name:
            raise InvalidEntry(
                f"scope {raw!r}: {name!r} is no kind of scope (path, tool, repo, global), and as free "
                "text it would apply everywhere",
                "write path:GLOB or tool:NAME; free text is a phrase: 'only in the billing service'",
            )
        return item

    def __str__(self) -> str:
        body = self.kind if self.kind in ("repo", "global") else self.value
        if self.kind in ("path", "tool"):
            body = f"{self.kind}:{self.value}"
        return ("!" if self.negated else "") + body


#: A free-text scope item written as errnote's `KIND:VALUE` syntax: a word, a colon, no blank.
_KIND_LIKE = re.compile(r"([A-Za-z][A-Za-z_-]+):\S+")


def unknown_kind(item: ScopeItem) -> str:
    """The name before the colon of a free-text item that reads like `KIND:VALUE` with a kind
    errnote does not know (`paths` of `paths:src/**`), or "" (a phrase, or a known kind)."""
    if item.kind != "text":
        return ""
    found = _KIND_LIKE.fullmatch(item.value)
    return found.group(1) if found else ""


#: macOS and Windows file systems ignore case (git sets `core.ignorecase` there): `SRC/` is `src/`.
FOLD_CASE = sys.platform in ("darwin", "win32")


def path_matches(pattern: str, path: str, *, fold_case: bool = FOLD_CASE) -> bool:
    """True when a repository-relative `path` falls under a scope glob, as in .gitignore and Cursor:
    `*` and `?` stay within one folder, `**/` is any number of folders (none too), `src/**` and a
    plain `docs` or `docs/` cover everything below, a pattern without `/` matches at any depth, and
    a leading `/` anchors it at the top. Matching takes time linear in the glob times the path (no
    backtracking), and a malformed bracket is read as plain text: a scope never breaks a command.
    Case is ignored where the file system ignores it (`fold_case`, on by default on macOS and Windows).
    """
    pattern, path = nfc(pattern), nfc(path)  # `é` one way in the scope, the other in the path
    if fold_case:
        pattern, path = pattern.casefold(), path.casefold()
    pat = pattern.strip().replace("\\", "/").removeprefix("./")
    anchored = "/" in pat.rstrip("/")
    parts = [p for p in pat.strip("/").split("/") if p]
    while parts and parts[-1] == "**":
        parts.pop()  # `src/**` is `src`: what a pattern names covers everything below it
    if not parts:
        return True
    if not anchored:
        parts.insert(0, "**")  # a bare name or `*.py` matches in any folder
    segments = [p for p in path.strip().replace("\\", "/").removeprefix("./").split("/") if p]
    globs = [p for i, p in enumerate(parts) if not (p == "**" and i and parts[i - 1] == "**")]
    # reach[j]: the globs so far match the first j folders of the path.
    reach = [True] + [False] * len(segments)
    for glob in globs:
        if glob == "**":  # zero or more whole folders
            for j in range(1, len(reach)):
                reach[j] = reach[j] or reach[j - 1]
            continue
        tokens = _glob_tokens(glob)
        reach = [False] + [reach[j] and _segment_matches(tokens, segments[j]) for j in range(len(segments))]
    # Whatever the pattern names, it covers what lies below it: any non-empty prefix will do.
    return any(reach[1:])


#: ("lit", char, _), ("any", "", _), ("star", "", _) or ("set", chars, negated)
_Token = tuple[str, str, bool]


@lru_cache(maxsize=1024)
def _glob_tokens(glob: str) -> tuple[_Token, ...]:
    """One folder's glob as tokens; `**` inside a name is `*`, and a bracket without its `]` is text."""
    tokens: list[_Token] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            if not (tokens and tokens[-1][0] == "star"):
                tokens.append(("star", "", False))
            i += 1
        elif c == "?":
            tokens.append(("any", "", False))
            i += 1
        elif c == "[" and (end := glob.find("]", i + 2)) != -1:
            body = glob[i + 1 : end]
            negated = body[:1] in ("!", "^")
            body = body[1:] if negated else body
            chars: list[str] = []
            k = 0
            while k < len(body):
                if k + 2 < len(body) and body[k + 1] == "-":
                    low, high = body[k], body[k + 2]
                    # A reversed range (z-a) holds nothing, as in fnmatch; a huge one is capped.
                    chars.extend(chr(o) for o in range(ord(low), min(ord(high), ord(low) + 4096) + 1))
                    k += 3
                else:
                    chars.append(body[k])
                    k += 1
            tokens.append(("set", "".join(dict.fromkeys(chars)), negated))
            i = end + 1
        else:
            tokens.append(("lit", c, False))
            i += 1
    return tuple(tokens)


def _segment_matches(tokens: tuple[_Token, ...], name: str) -> bool:
    """Does one folder or file name match one folder's glob? (dynamic programming, no backtracking)"""
    ok = [True] + [False] * len(name)  # ok[j]: the tokens so far match name[:j]
    for kind, chars, negated in tokens:
        if kind == "star":
            for j in range(1, len(ok)):
                ok[j] = ok[j] or ok[j - 1]
            continue
        nxt = [False] * len(ok)
        for j in range(len(name)):
            if ok[j]:
                c = name[j]
                in_set = kind == "set" and (c in chars) != negated
                if kind == "any" or (kind == "lit" and c == chars) or in_set:
                    nxt[j + 1] = True
        ok = nxt
    return ok[-1]


@dataclass(frozen=True)
class Scope:
    """Where an entry applies (and where it does not): a list of scope items."""

    items: tuple[ScopeItem, ...] = ()

    @classmethod
    def parse(cls, raw: Iterable[str]) -> Scope:
        """Scope items as read from a file: empty ones (`!` alone) say nothing and are left out."""
        return cls(
            tuple(ScopeItem.parse(r) for r in raw if clean_text(r, "scope", one_line=True).strip("! "))
        )

    @property
    def is_broad(self) -> bool:
        """True for entries meant everywhere in the repository (or everywhere at all)."""
        positive = [i for i in self.items if not i.negated]
        return not positive or any(i.kind in ("repo", "global", "text") for i in positive)

    def paths(self) -> list[str]:
        return [i.value for i in self.items if i.kind == "path" and not i.negated]

    def tools(self) -> list[str]:
        return [i.value for i in self.items if i.kind == "tool" and not i.negated]

    def covers_path(self, path: str) -> bool:
        """True when the entry applies to `path`: a path scope matches it and no exclusion does."""
        if any(i.kind == "path" and i.negated and path_matches(i.value, path) for i in self.items):
            return False
        globs = self.paths()
        return any(path_matches(g, path) for g in globs) if globs else self.is_broad

    def covers_tool(self, tool: str) -> bool:
        """True when a `tool:` scope names `tool` (see `same_name`) and no exclusion does."""
        if self.excludes_tool(tool):
            return False
        return any(same_name(t, tool) for t in self.tools())

    def excludes_tool(self, tool: str) -> bool:
        """True when a `!tool:` scope names `tool`."""
        return any(i.kind == "tool" and i.negated and same_name(i.value, tool) for i in self.items)

    def as_strings(self) -> list[str]:
        return [str(i) for i in self.items]
