"""`errnote digest`: recent mistakes clustered, and a lesson proposed for each repeated one.

1. The active mistakes recorded since `since` (the committed notebook, not the inbox) are set apart
   when they are transient (a time-out, a dropped connection, a rate limit: the patterns of
   `data/transient.txt`): a retry, not a rule, answers those.
2. The rest are clustered: two mistakes are one when the search (`errnote.search.index.search`, the same
   ranking as `errnote search`) finds one from the other's title and error text as a relevant hit,
   and they do not name two different tools. Tags are kept with each cluster.
3. A cluster of one is a one-off and is not promoted. For a cluster of two or more:
   - an active lesson already covers it (it `corrects` one of its mistakes, or the search finds one
     from the cluster's text as a relevant hit of no other tool): propose confirming that lesson
     (and linking `corrects` to each mistake it does not correct yet);
   - else propose one new lesson that `corrects` every mistake and is `derived-from` each of their
     corrections, drafted from the corrections' titles and the mistakes' fixes (when there are
     none, the draft says so and `needs_text` is true: edit the plan before applying it).

The plan is data (`Plan.to_json` / `plan_from_json`): an agent may rewrite a lesson's text and
apply the file. Applying writes through the notebook (validated, masked, atomic); a lesson that an
active lesson already covers (every mistake corrected) is skipped, so a plan applied twice adds
nothing the second time.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from errnote.errors import ErrnoteError
from errnote.model.entry import Entry, EntryType, Relation, Source, Status
from errnote.model.scope import unknown_kind
from errnote.model.timespec import iso

if TYPE_CHECKING:
    from errnote.notebook import Notebook

PLAN_VERSION = 1
ACTIONS = ("lesson", "confirm", "transient", "one-off")


@lru_cache(maxsize=1)
def transient_patterns() -> tuple[re.Pattern[str], ...]:
    """The patterns of a transient failure (package data, read on first use)."""
    with open(os.path.join(os.path.dirname(__file__), "data", "transient.txt"), encoding="utf-8") as f:
        text = f.read()
    lines = [line.strip() for line in text.splitlines()]
    return tuple(re.compile(line, re.IGNORECASE) for line in lines if line and not line.startswith("#"))


def transient(entry: Entry) -> bool:
    """A failure of the moment (network, time-out, rate limit), judged by its title and error."""
    text = f"{entry.title}\n{entry.error}"
    return any(p.search(text) for p in transient_patterns())


@dataclass(frozen=True)
class Draft:
    """The lesson a cluster would become."""

    title: str
    reason: str
    body: str
    scope: tuple[str, ...]
    tags: tuple[str, ...]
    tool: str
    corrects: tuple[str, ...]
    derived_from: tuple[str, ...]
    needs_text: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "reason": self.reason,
            "body": self.body,
            "scope": list(self.scope),
            "tags": list(self.tags),
            "tool": self.tool,
            "corrects": list(self.corrects),
            "derived_from": list(self.derived_from),
            "needs_text": self.needs_text,
        }


@dataclass(frozen=True)
class Proposal:
    """What to do with one cluster: `lesson` (add `lesson`), `confirm` (the lesson `confirm`), or
    nothing (`transient`, `one-off`)."""

    action: str
    mistakes: tuple[str, ...]
    why: str
    tool: str = ""
    tags: tuple[str, ...] = ()
    lesson: Draft | None = None
    confirm: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "mistakes": list(self.mistakes),
            "why": self.why,
            "tool": self.tool,
            "tags": list(self.tags),
            "lesson": self.lesson.to_json() if self.lesson is not None else None,
            "confirm": self.confirm or None,
        }


@dataclass(frozen=True)
class Plan:
    """Every cluster of the mistakes since `since`, and what to do with each."""

    since: datetime
    proposals: tuple[Proposal, ...]

    def to_json(self) -> dict[str, Any]:
        counts = Counter(p.action for p in self.proposals)
        return {
            "version": PLAN_VERSION,
            "since": iso(self.since),
            "counts": {a: counts.get(a, 0) for a in ACTIONS},
            "proposals": [p.to_json() for p in self.proposals],
        }


# --- clustering ----------------------------------------------------------------------------------


def _query(entry: Entry) -> str:
    return "\n".join(t for t in (entry.title, entry.error) if t.strip())


def _other_tool(a: str, b: str) -> bool:
    """Two different tools named (an entry with none goes with any)."""
    return bool(a and b and a.strip().lower() != b.strip().lower())


def _clusters(nb: Notebook, mistakes: Sequence[Entry], since: datetime) -> list[list[Entry]]:
    """Groups of mistakes the search finds from one another (linked through any member)."""
    from errnote.search.filters import make_filters
    from errnote.search.searcher import search_with_report

    by_id = {m.id: m for m in mistakes}
    parent = {m.id: m.id for m in mistakes}

    def root(key: str) -> str:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    filters = make_filters(types="mistake", since=since)
    report = None
    for m in mistakes:
        found = search_with_report(nb.store, _query(m), filters=filters, limit=20, report=report)
        report = found.report  # one sync for the whole digest
        for hit in found.hits:
            other = by_id.get(hit.id)
            if other is None or other.id == m.id or not hit.relevant or _other_tool(m.tool, other.tool):
                continue
            parent[root(other.id)] = root(m.id)
    groups: dict[str, list[Entry]] = {}
    for m in mistakes:  # oldest first, within each group too
        groups.setdefault(root(m.id), []).append(m)
    return list(groups.values())


def _common(values: Iterable[str]) -> str:
    """The one value all non-empty ones share, else ''."""
    seen = {v.strip().lower(): v.strip() for v in values if v.strip()}
    return next(iter(seen.values())) if len(seen) == 1 else ""


def _covering(nb: Notebook, group: Sequence[Entry], entries: Sequence[Entry], tool: str) -> Entry | None:
    """An active lesson that already covers the cluster: it corrects one of its mistakes, or the
    search finds it from the cluster's text (and it names no other tool)."""
    from errnote.search.searcher import search

    ids = {m.id for m in group}
    lessons = [e for e in entries if e.type is EntryType.LESSON and e.status is Status.ACTIVE]
    for lesson in lessons:
        if ids & set(lesson.links_to(Relation.CORRECTS)):
            return lesson
    by_id = {e.id: e for e in lessons}
    text = "\n".join(_query(m) for m in group)
    for hit in search(nb.store, text, types="lesson", limit=5):
        found = by_id.get(hit.id)
        if found is not None and hit.relevant and not _other_tool(tool, found.tool):
            return found
    return None


def _draft(group: Sequence[Entry], entries: Sequence[Entry], tool: str, tags: tuple[str, ...]) -> Draft:
    """One lesson for the cluster, from its corrections and fixes."""
    ids = [m.id for m in group]
    corrections = [
        e for e in entries if e.type is EntryType.CORRECTION and set(e.links_to(Relation.CORRECTS)) & set(ids)
    ]
    said = [c.title for c in corrections] + [m.fix for m in group if m.fix.strip()]
    tally = Counter(s.strip() for s in said if s.strip())
    needs_text = not tally
    if tally:
        # The instruction said most often; among equals, the first said (corrections first).
        title = max(tally, key=lambda s: (tally[s], -said.index(s)))
    else:
        title = f"Avoid repeating: {group[0].title}"
    title = title.splitlines()[0][:200]
    reasons = list(dict.fromkeys(m.reason.strip() for m in group if m.reason.strip()))
    seen = "; ".join(m.title for m in group[:3]) + ("; ..." if len(group) > 3 else "")
    reason = f"Without it the same mistake was made {len(group)} times: {seen}."
    reason += f" Why: {'; '.join(reasons)}." if reasons else ""
    lines = ["Drafted by errnote digest from:"]
    lines += [f"- mistake {m.id}: {m.title}" for m in group]
    lines += [f"- correction {c.id}: {c.title}" for c in corrections]
    lines += [f"- fix ({m.id}): {m.fix.strip()}" for m in group if m.fix.strip()]
    scope: list[str] = []
    for m in group:
        # Not an item a file holds that reads like a misspelt kind (`paths:...`, `lint` warns of
        # it): `add` refuses one, and as free text it would make the lesson apply everywhere.
        scope += [str(i) for i in m.scope.items if str(i) not in scope and not unknown_kind(i)]
    if tool and f"tool:{tool}" not in scope:
        scope.append(f"tool:{tool}")
    return Draft(
        title=title,
        reason=reason,
        body="\n".join(lines),
        scope=tuple(scope or ["repo"]),
        tags=tags,
        tool=tool,
        corrects=tuple(ids),
        derived_from=tuple(c.id for c in corrections),
        needs_text=needs_text,
    )


def plan(nb: Notebook, since: datetime) -> Plan:
    """The digest of the mistakes recorded since `since`."""
    entries = nb.load().entries
    recent = sorted(
        (
            e
            for e in entries
            if e.type is EntryType.MISTAKE and e.status is Status.ACTIVE and e.provenance.created >= since
        ),
        key=lambda e: (e.provenance.created, e.id),
    )
    passing = [m for m in recent if transient(m)]
    lasting = [m for m in recent if not transient(m)]
    proposals: list[Proposal] = []
    for group in _clusters(nb, lasting, since):
        tool = _common(m.tool for m in group)
        shared = set.intersection(*(set(m.tags) for m in group))
        tags = tuple(t for t in group[0].tags if t in shared)
        ids = tuple(m.id for m in group)
        if len(group) < 2:
            proposals.append(Proposal("one-off", ids, "made once: not a pattern yet", tool, tags))
            continue
        lesson = _covering(nb, group, entries, tool)
        if lesson is not None:
            why = f"lesson {lesson.id} covers these {len(group)} mistakes: confirm it"
            proposals.append(Proposal("confirm", ids, why, tool, tags, confirm=lesson.id))
            continue
        draft = _draft(group, entries, tool, tags)
        why = f"{len(group)} mistakes alike and no lesson covers them"
        proposals.append(Proposal("lesson", ids, why, tool, tags, lesson=draft))
    for group in _clusters(nb, passing, since) if passing else []:
        why = "transient (a time-out, a dropped connection, a rate limit): retry, no lesson"
        proposals.append(
            Proposal("transient", tuple(m.id for m in group), why, _common(m.tool for m in group))
        )
    order = {a: i for i, a in enumerate(ACTIONS)}
    proposals.sort(key=lambda p: order[p.action])
    return Plan(since, tuple(proposals))


# --- plan files ------------------------------------------------------------------------------------


def _strings(value: object, name: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ErrnoteError(f"{where}: {name} must be a list of strings", 'write it as ["..."]')
    return tuple(value)


def _text(data: Mapping[str, Any], name: str, where: str) -> str:
    value = data.get(name, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ErrnoteError(f"{where}: {name} must be a string")
    return value


def plan_from_json(data: object, source: str) -> Plan:
    """A plan read back from its JSON (`Plan.to_json`), checked; errors name `source`."""
    from errnote.model.timespec import parse_time

    if not isinstance(data, dict) or not isinstance(data.get("proposals"), list):
        raise ErrnoteError(f"{source} is not a digest plan", "write one with: errnote digest --json > PLAN")
    if data.get("version", PLAN_VERSION) != PLAN_VERSION:
        raise ErrnoteError(f"{source}: plan version {data.get('version')!r} is not {PLAN_VERSION}")
    since = parse_time(data.get("since") or "1970-01-01T00:00:00Z", f"{source}: since")
    proposals: list[Proposal] = []
    for n, raw in enumerate(data["proposals"], 1):
        where = f"{source}: proposal {n}"
        if not isinstance(raw, dict):
            raise ErrnoteError(f"{where} is not an object")
        action = raw.get("action")
        if action not in ACTIONS:
            raise ErrnoteError(f"{where}: unknown action {action!r}", f"use one of: {', '.join(ACTIONS)}")
        lesson = None
        raw_lesson = raw.get("lesson")
        if action == "lesson":
            if not isinstance(raw_lesson, dict) or not _text(raw_lesson, "title", where).strip():
                raise ErrnoteError(f"{where}: a lesson proposal needs lesson.title")
            lesson = Draft(
                title=_text(raw_lesson, "title", where),
                reason=_text(raw_lesson, "reason", where),
                body=_text(raw_lesson, "body", where),
                scope=_strings(raw_lesson.get("scope"), "lesson.scope", where),
                tags=_strings(raw_lesson.get("tags"), "lesson.tags", where),
                tool=_text(raw_lesson, "tool", where),
                corrects=_strings(raw_lesson.get("corrects"), "lesson.corrects", where),
                derived_from=_strings(raw_lesson.get("derived_from"), "lesson.derived_from", where),
                needs_text=bool(raw_lesson.get("needs_text", False)),
            )
        confirm = _text(raw, "confirm", where)
        if action == "confirm" and not confirm.strip():
            raise ErrnoteError(f"{where}: a confirm proposal needs the lesson's id in confirm")
        proposals.append(
            Proposal(
                action=action,
                mistakes=_strings(raw.get("mistakes"), "mistakes", where),
                why=_text(raw, "why", where),
                tool=_text(raw, "tool", where),
                tags=_strings(raw.get("tags"), "tags", where),
                lesson=lesson,
                confirm=confirm,
            )
        )
    return Plan(since, tuple(proposals))


# --- applying -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Applied:
    """What applying one proposal did: `added` a lesson, `confirmed` one, or `skipped`."""

    done: str
    id: str
    mistakes: tuple[str, ...]
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"done": self.done, "id": self.id or None, "mistakes": list(self.mistakes), "note": self.note}


def apply(nb: Notebook, chosen: Plan) -> list[Applied]:
    """Write the plan's lessons and confirmations (transient and one-off proposals write nothing)."""
    done: list[Applied] = []
    for p in chosen.proposals:
        if p.action == "lesson" and p.lesson is not None:
            done.append(_add(nb, p, p.lesson))
        elif p.action == "confirm":
            done.append(_confirm(nb, p))
    return done


def _add(nb: Notebook, p: Proposal, draft: Draft) -> Applied:
    targets = [nb.resolve(ref) for ref in (*draft.corrects, *draft.derived_from)]  # every id checked first
    corrects = set(targets[: len(draft.corrects)])
    for e in nb.load().entries if corrects else ():
        held = e.type is EntryType.LESSON and e.status is Status.ACTIVE
        if held and corrects <= set(e.links_to(Relation.CORRECTS)):
            return Applied("skipped", e.id, p.mistakes, f"lesson {e.id} already corrects them")
    links = [(Relation.CORRECTS, ref) for ref in draft.corrects]
    links += [(Relation.DERIVED_FROM, ref) for ref in draft.derived_from]
    entry = nb.add(
        EntryType.LESSON,
        draft.title,
        body=draft.body,
        reason=draft.reason,
        scope=draft.scope,
        tags=draft.tags,
        tool=draft.tool,
        links=links,
        source=Source.TOOL,
    )
    return Applied("added", entry.id, p.mistakes)


def _confirm(nb: Notebook, p: Proposal) -> Applied:
    lesson = nb.get(p.confirm)
    mistakes = [nb.resolve(ref) for ref in p.mistakes]
    note = "digest: repeated by " + ", ".join(mistakes) if mistakes else "digest"
    if mistakes and note in lesson.body:  # this plan was applied already: count it once
        return Applied("skipped", lesson.id, p.mistakes, f"lesson {lesson.id} was confirmed for them already")
    nb.confirm(lesson.id, note=note)
    for ref in mistakes:
        if ref not in lesson.links_to(Relation.CORRECTS):
            nb.link(lesson.id, Relation.CORRECTS, ref)
    return Applied("confirmed", lesson.id, p.mistakes)
