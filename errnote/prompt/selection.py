"""What a selection is: the options it was made with, each entry picked and why, what the budget
dropped. The renderers read it; `errnote.prompt.select` makes it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from errnote.errors import UsageError
from errnote.model.entry import Entry

if TYPE_CHECKING:
    from errnote.config import Config

#: The order sections are rendered in; `SECTION_TITLES` are their markdown headings.
SECTIONS = ("always", "query", "path", "tool", "recent")
SECTION_TITLES = {
    "always": "Rules",
    "query": "Relevant to this task",
    "path": "For the files in play",
    "tool": "For the tools in use",
    "recent": "Recent failures",
}


@dataclass(frozen=True)
class Options:
    """What to select: the situation (query, paths, tools) and the limits."""

    query: str = ""
    query_is_command: bool = False  # the query is a command about to run (a hook's), not a question
    query_is_output: bool = False  # the query is a program's output (a failed tool's), not a question
    #: Embed at most this many new entry texts before answering (a hook has seconds): beyond, the
    #: query is ranked by words and the vectors are computed in the background. None: no limit.
    embed_limit: int | None = None
    paths: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    floor: float = 0.5
    recent_days: int = 7
    max_per_section: int = 5
    budget: int = 8000
    always: bool = True  # include the always-on section
    recent: bool = True  # include the recent-failures section
    exclude: frozenset[str] = frozenset()  # ids already shown (a hook's session)
    fmt: str = "markdown"  # the budget counts the characters of this format (json: as markdown)
    dated: bool = False  # ages written as dates (what --write puts into files)

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> Options:
        """Options with the notebook's configured limits; `None` overrides mean "use the setting"
        (a refused setting has its default already: `Config.errors` says why)."""
        base = cls(
            floor=config.floor,
            recent_days=config.recent_days,
            max_per_section=config.max_per_section,
            budget=config.budget,
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(base, **given).checked()

    def checked(self) -> Options:
        if not 0.0 <= self.floor <= 1.0:
            raise UsageError(f"--floor {self.floor} is outside 0..1", "give a confidence from 0 to 1")
        for name, value in (("--max", self.max_per_section), ("--budget", self.budget)):
            if value < 0:
                raise UsageError(f"{name} must not be negative")
        if not 0 <= self.recent_days <= 36500:
            raise UsageError("--recent-days must be from 0 to 36500 (a hundred years)")
        return self


@dataclass(frozen=True)
class Picked:
    """One selected entry: the section it is shown in, every rule that selected it, and why."""

    entry: Entry
    section: str
    reasons: tuple[str, ...]
    score: float | None = None  # the search score, for query matches
    matched: tuple[str, ...] = ()  # query terms, paths or tools that matched
    instead: str = ""  # for a mistake without a fix: the title of the correction that corrects it
    notebook: str = ""  # the notebook it came from when not the repository's: personal, or an extra's name

    def with_reason(self, reason: str, matched: Sequence[str] = (), score: float | None = None) -> Picked:
        reasons = self.reasons if reason in self.reasons else (*self.reasons, reason)
        extra = tuple(m for m in matched if m not in self.matched)
        return replace(self, reasons=reasons, matched=self.matched + extra, score=self.score or score)


@dataclass(frozen=True)
class Selection:
    """The outcome of `select`: what is shown, in render order, and what the budget dropped."""

    picked: tuple[Picked, ...]
    dropped: tuple[Picked, ...]
    options: Options
    now: datetime
    total: int  # entries in the notebook (any status)
    chars: int  # the size of what is shown, in the format the budget counts
    #: (id, title) of the next few hits of the query that are related but do not apply: named on
    #: one "may also apply" line, never given as rules (`errnote.search.applies`).
    related: tuple[tuple[str, str], ...] = ()

    def section(self, name: str) -> list[Picked]:
        return [p for p in self.picked if p.section == name]

    @property
    def ids(self) -> list[str]:
        return [p.entry.id for p in self.picked]
