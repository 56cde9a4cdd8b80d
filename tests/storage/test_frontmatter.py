"""Entry files: the front-matter codec (rendering, parsing, broken files) and comment keeping."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_linear

from errnote.errors import InvalidEntry
from errnote.model.codec import entry_from_dict
from errnote.redact.secrets import redact
from errnote.storage.comments import carry_comments, front_matter_comments
from errnote.storage.frontmatter import parse_entry, render_entry
from errnote.storage.store import read_entry

ENTRY_TEXT = textwrap.dedent(
    """\
    ---
    id: 0123456789
    type: mistake
    title: Ran cargo build --all-features
    status: active
    confidence: 0.5
    error: |-
      error: failed to run custom build command for `openssl-sys`
      Could not find directory of OpenSSL installation
    provenance:
      created: 2026-11-01T10:00:00Z
      updated: 2026-11-01T10:00:00Z
      source: user
    ---

    The TLS features exclude each other.
    """
)


def test_render_then_parse_is_identity() -> None:
    entry = parse_entry(ENTRY_TEXT)
    assert parse_entry(render_entry(entry)) == entry


def test_rendering_is_stable_and_readable() -> None:
    entry = parse_entry(ENTRY_TEXT)
    text = render_entry(entry)
    assert text == ENTRY_TEXT
    assert "&id" not in text  # no YAML anchors for repeated timestamps


def test_editing_one_field_changes_one_line() -> None:
    entry = parse_entry(ENTRY_TEXT)
    before = render_entry(entry).splitlines()
    after = render_entry(entry.with_changes(confidence=0.7)).splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(before) == len(after)
    assert changed == [("confidence: 0.5", "confidence: 0.7")]


def test_conflict_markers_are_reported_as_such() -> None:
    text = ENTRY_TEXT.replace(
        "confidence: 0.5", "<<<<<<< HEAD\nconfidence: 0.5\n=======\nconfidence: 0.9\n>>>>>>> b"
    )
    with pytest.raises(InvalidEntry, match="merge-conflict"):
        parse_entry(text, Path("x.md"))


def test_invalid_yaml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    path.write_text("---\nid: [unclosed\n---\nbody\n")
    with pytest.raises(InvalidEntry) as err:
        read_entry(path)
    assert str(path) in str(err.value)
    assert "YAML" in str(err.value)


def test_missing_front_matter_and_non_utf8(tmp_path: Path) -> None:
    plain = tmp_path / "plain.md"
    plain.write_text("# just markdown\n")
    with pytest.raises(InvalidEntry, match="front-matter"):
        read_entry(plain)
    binary = tmp_path / "bin.md"
    binary.write_bytes(b"---\n\xff\xfe\n---\n")
    with pytest.raises(InvalidEntry, match="UTF-8"):
        read_entry(binary)


def test_entry_from_dict_rejects_bad_provenance() -> None:
    with pytest.raises(InvalidEntry, match="created"):
        entry_from_dict({"id": "abcd123456", "type": "lesson", "title": "t", "provenance": {}})


def test_a_markdown_rule_line_is_not_a_conflict_and_a_bom_is_fine() -> None:
    body = ENTRY_TEXT + "\nSetup\n=======\n\nrun make\n"
    assert "=======" in parse_entry(body).body
    assert parse_entry("\ufeff" + ENTRY_TEXT) == parse_entry(ENTRY_TEXT)


@pytest.mark.parametrize("bad", ["2026-02-30T10:00:00Z", "0001-01-01T00:00:00+01:00", "2026-13-45"])
def test_impossible_dates_are_named_errors(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "x.md"
    path.write_text(ENTRY_TEXT.replace("created: 2026-11-01T10:00:00Z", f"created: {bad}"))
    with pytest.raises(InvalidEntry) as err:
        read_entry(path)
    assert str(path) in str(err.value)


def test_a_key_twice_is_refused_but_a_quoted_value_over_two_lines_is_not() -> None:
    head = "---\nid: abcdef0123\ntype: lesson\ntitle: t\nprovenance:\n  created: 2026-11-30T10:00:00Z\n"
    two_lines = head + 'reason: "the server said\nreason: connection refused"\n---\n'
    assert parse_entry(two_lines).reason == "the server said reason: connection refused"
    with pytest.raises(InvalidEntry, match="title twice"):
        parse_entry(head.replace("title: t\n", '"title": a\ntitle: b\n') + "---\n")
    with pytest.raises(InvalidEntry, match="created twice"):
        parse_entry(head + "  created: 2026-11-30T11:00:00Z\n---\n")


def test_aliases_are_refused_before_they_expand() -> None:
    """A few nested aliases expand to gigabytes ("billion laughs"); errnote never writes one."""
    head = "---\nid: abcdef0123\ntype: lesson\ntitle: t\nprovenance:\n  created: 2026-11-30T10:00:00Z\n"
    levels = ['  - &a0 "xxxxxxxxxx"'] + [
        f"  - &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)
    ]
    bomb = head.replace("---\n", "---\nlinks_x:\n" + "\n".join(levels) + "\n", 1) + "pinned: *a9\n---\n"
    with pytest.raises(InvalidEntry, match="alias"):
        parse_entry(bomb)
    # `&` elsewhere (R&D, a && b) is just text; a merge written inline still loads.
    plain = head + "reason: 'R&D runs make && make test'\nlinks:\n  <<: {related: ['4824b7ce45']}\n---\n"
    entry = parse_entry(plain)
    assert entry.reason == "R&D runs make && make test" and [lk.target for lk in entry.links] == [
        "4824b7ce45"
    ]


def test_conflict_markers_shown_in_a_code_example_are_not_a_conflict() -> None:
    from errnote.storage.frontmatter import has_conflict_markers

    real = "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> feature\n"
    example = f"Resolve lockfiles by regenerating them:\n\n```\n{real}```\n"
    assert not has_conflict_markers(example)
    assert has_conflict_markers(real) and has_conflict_markers(example + real)
    assert has_conflict_markers("```\nunclosed fence\n" + real)  # a fence never closed hides nothing
    assert has_conflict_markers(real.replace("<<<<<<<", "<<<<<<<<<").replace(">>>>>>>", ">>>>>>>>>"))


def test_many_half_conflicts_are_read_in_one_pass() -> None:
    from errnote.storage.frontmatter import has_conflict_markers

    # Thousands of start and middle markers with no end marker: a pattern spanning all three
    # markers backtracked over every pair (minutes); the line scan reads each line once.
    halves = "<<<<<<< a\n=======\n" * 3000
    assert not has_conflict_markers(halves)
    assert has_conflict_markers(halves + ">>>>>>> b\n")
    fenced = "```\n<<<<<<< a\n```\n" * 3000  # as many fences as markers
    assert not has_conflict_markers(fenced + "=======\n>>>>>>> b\n")
    assert has_conflict_markers(fenced + "<<<<<<< a\n=======\n>>>>>>> b\n")
    assert not has_conflict_markers("=======\n>>>>>>> b\n<<<<<<< a\n")  # out of order


@pytest.mark.parametrize("value", ["!!timestamp soon", "!!bool maybe", "!!map x"])
def test_a_value_that_does_not_fit_its_yaml_tag_is_one_unreadable_file(value: str) -> None:
    text = ENTRY_TEXT.replace("confidence: 0.5", f"confidence: 0.5\ntool: {value}")
    with pytest.raises(InvalidEntry) as err:
        parse_entry(text, Path("x.md"))
    assert str(err.value).startswith("x.md: ")


def test_times_before_the_year_1000_are_written_as_four_digits() -> None:
    from errnote.model.timespec import iso

    assert iso(datetime(999, 1, 2, 3, 4, 5, 678, tzinfo=timezone.utc)) == "0999-01-02T03:04:05Z"
    entry = parse_entry(ENTRY_TEXT)
    old = entry.with_changes(last_confirmed=datetime(999, 1, 1, tzinfo=timezone.utc))
    assert parse_entry(render_entry(old)).last_confirmed == old.last_confirmed


# --- YAML comments in hand-written front-matter ------------------------------------------------

COMMENTED = (
    ENTRY_TEXT.replace("type: mistake\n", "type: mistake\n# kept by the team: see the wiki\n")
    .replace("confidence: 0.5\n", "confidence: 0.5  # lowered after the review\n")
    .replace("  source: user\n", "  # imported by hand\n  source: user\n")
)


def test_comments_are_found_and_a_hash_inside_a_value_is_not_one() -> None:
    assert front_matter_comments(COMMENTED) == [(2, 0), (5, 17), (12, 2)]
    values = ENTRY_TEXT.replace(
        "title: Ran cargo build --all-features", "title: 'C# and # in quotes'"
    ).replace("  Could not find", "  # not a comment in a literal block\n  Could not find")
    values = values.replace("status: active", "status: active # but this one is")
    assert parse_entry(values).title == "C# and # in quotes"
    assert front_matter_comments(values) == [(3, 15)]
    assert front_matter_comments(ENTRY_TEXT) == []
    assert front_matter_comments("no front-matter # here") == []


def test_a_rewrite_keeps_comments_beside_the_lines_they_annotate() -> None:
    entry = parse_entry(COMMENTED)
    assert carry_comments(COMMENTED, render_entry(entry)) == COMMENTED
    changed = carry_comments(COMMENTED, render_entry(entry.with_changes(confidence=0.7, tags=("rust",))))
    assert "# kept by the team: see the wiki\ntitle:" in changed
    # the value changed: its comment goes above the key rather than after a value it did not describe
    assert "# lowered after the review\nconfidence: 0.7\n" in changed
    assert "  # imported by hand\n  source: user\n" in changed
    assert parse_entry(changed) == parse_entry(
        render_entry(entry.with_changes(confidence=0.7, tags=("rust",)))
    )


def test_a_comment_whose_line_is_gone_moves_to_the_end_of_the_front_matter() -> None:
    text = ENTRY_TEXT.replace("  Could not find directory of OpenSSL installation\n", "").replace(
        "error: |-\n", "# the full log is in CI\nerror: |-\n"
    )
    entry = parse_entry(text)
    new = render_entry(entry.with_changes(error=""))
    kept = carry_comments(text, new)
    assert "# the full log is in CI\n---\n" in kept and parse_entry(kept) == parse_entry(new)


def test_comments_that_would_change_the_entry_are_not_carried() -> None:
    """Put back above a line of a literal block, a comment would become part of the value."""
    old = COMMENTED.replace(
        "  # imported by hand\n  source: user\n", "  source: user\n  # on main\n  branch: main\n"
    )
    assert parse_entry(old).provenance.branch == "main"
    entry = parse_entry(old)
    entry = entry.with_changes(
        reason="first line\nbranch: main", provenance=replace(entry.provenance, branch="")
    )
    new = render_entry(entry)
    assert "reason: |-\n  first line\n  branch: main\n" in new  # the line is now inside a value only
    kept = carry_comments(old, new)
    assert parse_entry(kept) == entry
    # not put where it would change the value: every comment moves to the end, none is lost
    assert "  branch: main\n" not in kept.split("provenance:")[1]
    assert "\n# kept by the team: see the wiki\n# lowered after the review\n# on main\n---\n" in kept


def test_a_line_in_two_fields_takes_its_comment_to_the_right_one() -> None:
    old = COMMENTED
    entry = parse_entry(old).with_changes(reason="first line\nsource: user")
    kept = carry_comments(old, render_entry(entry))
    assert "  # imported by hand\n  source: user\n" in kept.split("provenance:")[1]
    assert parse_entry(kept) == entry


TOKEN = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
BASE = {
    "id": "abcdef1234",
    "type": "lesson",
    "title": "T",
    "provenance": {"created": "2026-01-01T00:00:00Z", "updated": "2026-01-01T00:00:00Z"},
}


def test_a_comment_after_a_block_scalar_indicator_is_kept() -> None:
    new = render_entry(entry_from_dict({**BASE, "error": "line one\nline two"}))
    old = new.replace("error: |-\n", "error: |-  # from the CI log\n")
    assert parse_entry(old) == parse_entry(new)
    assert front_matter_comments(old) != []
    assert "error: |-  # from the CI log\n" in carry_comments(old, new)


def test_finding_comments_is_linear_on_a_long_flow_line() -> None:
    """Each `#` was checked against every value span of its line: quadratic in a flow list of
    quoted values holding `#` (a 200 KB file took seconds, a 750 KB one about a minute)."""

    def texts(n: int) -> tuple[str, str]:
        new = render_entry(entry_from_dict({**BASE, "tags": [f"t{i} #x" for i in range(n)]}))
        flow = "tags: [" + ", ".join(f"'t{i} #x'" for i in range(n)) + "]  # c"
        old = "\n".join(line for line in new.split("\n") if not line.startswith("- ")).replace("tags:", flow)
        return old, new

    old, new = texts(4000)
    assert parse_entry(old) == parse_entry(new)
    assert "# c\ntags:\n" in carry_comments(old, new)
    made = {n: texts(n) for n in (2000, 16000)}
    assert_linear(lambda n: carry_comments(*made[n]), 2000)


def test_a_yaml_line_break_inside_a_value_does_not_shift_where_comments_are() -> None:
    """YAML breaks lines at U+2028 too: the scanner's line numbers are not the file's."""
    text = render_entry(
        entry_from_dict({**BASE, "reason": "Seen in the log\u2028twice", "fix": "run make # then"})
    )
    assert front_matter_comments(text) == []
    assert carry_comments(text, text) == text


def test_a_secret_in_a_comment_is_masked_when_carried() -> None:
    new = render_entry(entry_from_dict(BASE))
    old = new.replace("title: T\n", f"# deploy key {TOKEN}\ntitle: T  # was {TOKEN}\n")
    kept = carry_comments(old, new)
    assert TOKEN not in kept
    assert "# deploy key [REDACTED]\ntitle: T  # was [REDACTED]\n" in kept


def test_a_private_key_pasted_as_comment_lines_is_masked_when_carried() -> None:
    """Each line alone holds no secret shape: the comments are read as one text."""
    key_lines = [
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        "QyNTUxOQAAACBvX3Z0K2FxR0xkVmVhQ3pOYk1yR1V4c0pQb1RqT0VqUkJ0WjFzAAAAJBpt",
    ]
    block = ["-----BEGIN OPENSSH PRIVATE KEY-----", *key_lines, "-----END OPENSSH PRIVATE KEY-----"]
    new = render_entry(entry_from_dict(BASE))
    old = new.replace("title: T\n", "\n".join("# " + line for line in block) + "\ntitle: T  # a note\n")
    kept = carry_comments(old, new)
    assert all(line not in kept for line in key_lines)
    assert (
        "# -----BEGIN OPENSSH PRIVATE KEY-----\n# [REDACTED]\n# [REDACTED]\n"
        "# -----END OPENSSH PRIVATE KEY-----\ntitle: T  # a note\n"
    ) in kept


def test_a_tab_in_the_front_matter_does_not_drop_every_comment() -> None:
    """The comments are found with the parser entries are read with (libyaml takes a tab)."""
    new = render_entry(entry_from_dict(BASE))
    old = new.replace("title: T\n", "# kept by the team\ntitle: T\t\n").replace(
        "status: active\n", "status: active  # why\n"
    )
    assert parse_entry(old) == parse_entry(new)
    kept = carry_comments(old, new)
    assert "# kept by the team\ntitle: T\n" in kept and "status: active  # why\n" in kept


def test_carrying_many_comment_lines_stays_linear() -> None:
    new = render_entry(entry_from_dict(BASE))
    olds = {n: new.replace("title: T\n", "#\n" * n + "title: T\n") for n in (15_000, 120_000)}
    assert carry_comments(olds[120_000], new).count("#\n") == 120_000
    assert_linear(lambda n: carry_comments(olds[n], new), 15_000)


def test_a_comment_already_in_the_new_text_is_not_added_again() -> None:
    new = render_entry(entry_from_dict(BASE))
    old = new.replace("title: T\n", "# shared\n# only here\ntitle: T\n")
    once = carry_comments(old, new)
    assert carry_comments(old, once).count("# shared") == 1


AWS_ID = "AKIA" + "IOSFODNN7EXAMPL1"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
PEM_LINES = [
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu",
    "-----END RSA PRIVATE KEY-----",
]


def test_a_secret_known_by_the_comment_before_it_is_masked_whatever_other_comments_hold() -> None:
    new = render_entry(entry_from_dict(BASE))
    pair = f"# aws {AWS_ID}\n# {AWS_SECRET}\n"
    assert AWS_SECRET not in carry_comments(new.replace("title: T\n", pair + "title: T\n"), new)
    pem = "".join(f"# {line}\n" for line in PEM_LINES)
    kept = carry_comments(new.replace("title: T\n", pem + pair + "title: T\n"), new)
    assert AWS_SECRET not in kept and PEM_LINES[1] not in kept
    assert kept.count("# [REDACTED]") >= 2  # the key's body and the AWS secret


def test_masking_comments_with_a_key_across_lines_is_linear() -> None:
    new = render_entry(entry_from_dict(BASE))
    pem = [f"# {line}" for line in PEM_LINES]

    def old(n: int) -> str:  # it was quadratic: every comment x every span
        tokens = [f"# t gh{'p'}_{i:036d}" for i in range(n)]
        return new.replace("title: T\n", "\n".join(pem + tokens) + "\ntitle: T\n")

    olds = {n: old(n) for n in (2000, 16000)}
    assert carry_comments(olds[16000], new).count("[REDACTED]") == 16000 + len(PEM_LINES) - 2  # its body
    assert_linear(lambda n: carry_comments(olds[n], new), 2000)


def test_a_secret_redact_finds_after_a_multi_line_mask_is_masked_when_carried() -> None:
    """`redact` masks the PEM block as one mask, so its second pass finds the AWS secret within its
    window after the key id; per-line masks are longer: what `redact` takes out stays out."""
    comments = [
        f"# id {AWS_ID}-",  # `-` glued: no shape match, still a key id for the AWS rule
        "# -----BEGIN RSA PRIVATE KEY-----",
        *["# MIIBOgIBAAJBAKj"] * 20,
        "# -----END RSA PRIVATE KEY-----",
        f"# {AWS_SECRET}",
    ]
    assert AWS_SECRET not in redact("\n".join(comments))
    new = render_entry(entry_from_dict(BASE))
    old = new.replace("title: T\n", "\n".join(comments) + "\ntitle: T\n")
    kept = carry_comments(old, new)
    assert parse_entry(kept) == parse_entry(new)
    assert AWS_SECRET not in kept and f"# id {AWS_ID}-\n" in kept


def test_the_c_yaml_loader_and_dumper_give_the_bytes_and_entries_of_the_pure_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libyaml (CSafeDumper, CSafeLoader) is used when PyYAML has it: the files it writes and the
    entries it reads must be those of the pure-Python dumper and loader, byte for byte."""
    import yaml

    from errnote.storage import frontmatter

    if not hasattr(yaml, "CSafeDumper"):
        pytest.skip("this PyYAML has no libyaml")
    base = parse_entry(ENTRY_TEXT)
    tricky = [
        base,
        replace(base, title="Ümlaut, 中文 and emoji 🚀: a colon, # a hash, 'quotes' \"both\""),
        replace(base, body="  indented first line\n\nthen `code`\n", reason="a: b\n- c\n", tags=("x", "y")),
        replace(base, error="tab\there and a trailing space \nand CRLF-free lines", fix="yes"),
    ]
    fast = [render_entry(e) for e in tricky]
    fast_read = [parse_entry(text) for text in fast]
    monkeypatch.delattr(yaml, "CSafeDumper")
    monkeypatch.delattr(yaml, "CSafeLoader")
    frontmatter._handler.cache_clear()
    try:
        assert [render_entry(e) for e in tricky] == fast
        pure_read = [parse_entry(text) for text in fast]
        assert pure_read == fast_read == [parse_entry(render_entry(e)) for e in tricky]
    finally:
        monkeypatch.undo()
        frontmatter._handler.cache_clear()


PLAIN_OR_NOT = [
    "id: a1\ntitle: x\nconfidence: 0.5\npinned: true\nexpires: 2026-01-02\nnothing: null\nn: 7\n",
    "provenance:\n  created: 2026-01-02T03:04:05Z\n  updated: 2026-01-02 03:04:05.5+02:00\n",
    "tags:\n- a\n- 'b'\n- \"c\"\n- [d, e]\n- {f: g}\nscope: []\nlinks:\n- {rel: corrects, target: ab}\n",
    "base: &b {x: 1}\n",  # an anchor: the pure-Python loader (refused alias or not)
    "<<: {x: 1}\ny: 2\n",  # a merge key
    "=: value key\n",
    "1: int key\n2026-01-01: date key\n",
    "s: !!set {a, b}\no: !!omap [{a: 1}]\nb: !!binary aGVsbG8=\n",
    "title: !!str 12\nn: !!int '7'\nf: !!float '1'\n",
    "title: one\ntitle: two\n",
    "x:\n  y: 1\n  y: 2\n",
    "- a list\n- document\n",
    "just a scalar\n",
    "t: yes\nf: off\nh: 0x1F\no: 0o17\ninf: .inf\nnan: .NaN\nsexa: 1:30\n",
    "body: |\n  two\n  lines\nfolded: >\n  a\n  b\n",
    "",
]


def _outcome(text: str, loader: Any) -> Any:
    import yaml

    try:
        return ("ok", yaml.load(text, Loader=loader))
    except Exception as exc:  # noqa: BLE001 - the kind of failure is what is compared
        return ("error", type(exc).__name__)


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types, all the way down (NaN equal to NaN)."""
    import math

    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("text", PLAIN_OR_NOT)
def test_the_fast_loader_builds_what_pyyamls_constructor_builds(text: str) -> None:
    """The loader of entry files (plain documents built directly, `_plain`) against the same
    loader constructing them PyYAML's way: the same values of the same types, or the same error."""
    from errnote.storage import frontmatter as fm

    plain = fm._handler().fast
    got, expected = _outcome(text, plain), _outcome(text, plain.__mro__[1])
    assert got[0] == expected[0] and (_same(got[1], expected[1]) if got[0] == "ok" else got == expected)


def test_the_fast_loader_reads_a_generated_notebook_as_pyyaml_does(tmp_path: Path) -> None:
    import subprocess
    import sys

    import frontmatter
    import yaml

    from errnote.storage import frontmatter as fm

    root = Path(__file__).resolve().parents[2]
    subprocess.run(
        [
            sys.executable,
            str(root / "bench" / "generate.py"),
            "--n",
            "300",
            "--seed",
            "11",
            "--out",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    loader = fm._handler().fast.__mro__[1]  # the same loader, constructing PyYAML's way
    files = sorted((tmp_path / ".errnote" / "entries").rglob("*.md"))
    assert len(files) == 300
    for path in files:
        text = path.read_text("utf-8")
        fast, _ = frontmatter.parse(text, handler=fm._handler())
        slow = yaml.load(text.split("---\n")[1], Loader=loader)
        assert _same(fast, slow), path
