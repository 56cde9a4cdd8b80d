"""Scope items and the glob matching of repository paths."""

from __future__ import annotations

import sys

import pytest

from errnote.errors import InvalidEntry
from errnote.model.scope import FOLD_CASE, Scope, ScopeItem, path_matches, unknown_kind


def test_scope_items_parse_into_kinds() -> None:
    scope = Scope.parse(["repo", "path:src/**", "!path:src/gen/**", "tool:Git", "only in CI"])
    assert [i.kind for i in scope.items] == ["repo", "path", "path", "tool", "text"]
    assert scope.items[2].negated
    assert str(scope.items[2]) == "!path:src/gen/**"
    with pytest.raises(InvalidEntry):
        ScopeItem.parse("path:")


def test_scope_covers_paths_with_globs_and_exclusions() -> None:
    scope = Scope.parse(["path:src/**", "!path:src/gen/**"])
    assert scope.covers_path("src/app/main.py")
    assert not scope.covers_path("src/gen/api.py")
    assert not scope.covers_path("docs/index.md")
    assert Scope.parse(["repo"]).covers_path("anything/at/all.txt")
    assert not Scope.parse(["tool:git"]).covers_path("src/a.py")


def test_scope_covers_tools_case_insensitively() -> None:
    scope = Scope.parse(["tool:Cargo"])
    assert scope.covers_tool("cargo")
    assert not scope.covers_tool("npm")


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "deep/down/x.py", True),
        ("web/src/**", "web/src/a/b.ts", True),
        ("web/src/**", "web/srcx/a.ts", False),
        ("docs", "docs/guide/intro.md", True),
        ("services/*/main.go", "services/notify/main.go", True),
        # as in .gitignore and Cursor: `**/` is zero or more folders, `*` stays within one
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/a/b/c.py", True),
        ("**/*.py", "a.py", True),
        ("src/*.py", "src/a/b/c.py", False),
        ("src/*.py", "src/a.pyx", False),
        ("web/src/**", "web/src", True),
        ("src/[ab].py", "src/b.py", True),
        ("src/[!ab].py", "src/a.py", False),
        ("a?c", "a/c", False),
        ("docs/", "docs/guide/intro.md", True),
        ("/src", "src/a.py", True),  # a leading slash anchors at the top
        ("/src", "lib/src/a.py", False),
        ("src", "lib/src/a.py", True),
        ("src/[z-a].py", "src/a.py", False),  # a reversed range holds nothing; no error
        ("src/[ab.py", "src/[ab.py", True),  # a bracket without its end is text
    ],
)
def test_path_globs(pattern: str, path: str, expected: bool) -> None:
    assert path_matches(pattern, path) is expected


def test_path_globs_ignore_case_where_the_file_system_does() -> None:
    assert path_matches("SRC/**/*.PY", "src/app/Main.py", fold_case=True)
    assert not path_matches("SRC/**/*.PY", "src/app/Main.py", fold_case=False)
    assert path_matches("docs/[A-C]*.md", "Docs/b.md", fold_case=True)
    assert FOLD_CASE is (sys.platform in ("darwin", "win32"))


def test_path_scopes_strip_a_dot_slash_prefix_only() -> None:
    assert path_matches("./src/**", "src/a.py")
    assert not path_matches(".env", "env/bin/activate")
    assert not path_matches(".github/**", "github/x.yml")
    assert path_matches(".github/**", ".github/workflows/ci.yml")


def test_path_globs_that_made_a_regular_expression_backtrack() -> None:
    """Globs and paths anyone could write into an entry and a file name: each of these took
    seconds as a regular expression (a hook has 10 s); matching is now linear, so they are quick."""
    assert not path_matches("*a*a*a*a*a*a*a*b", "a" * 60)
    assert not path_matches("a/" + "**/" * 10 + "z", "a/" + "b/" * 25 + "y")
    assert not path_matches("**x" * 5 + "q", "x" * 200)
    assert path_matches("**x" * 5 + "q", "x" * 200 + "q")


@pytest.mark.parametrize("raw", ["paths:src/**", "glob:*.py", "Tools:cargo", "!file:vendor/x", "lang:python"])
def test_a_scope_given_like_a_kind_errnote_does_not_know_is_refused(raw: str) -> None:
    with pytest.raises(InvalidEntry, match="no kind of scope"):
        ScopeItem.parse_given(raw)
    item = ScopeItem.parse(raw)  # a file holding it is still read (lint warns), as free text
    assert item.kind == "text" and unknown_kind(item) == raw.lstrip("!").split(":")[0]


@pytest.mark.parametrize(
    "raw", ["path:src/**", "TOOL:cargo", "repo", "!global", "only in the billing service", "python 3.12+",
            "see: the deploy docs", "C:/work", "x"],
)  # fmt: skip
def test_known_kinds_and_phrases_are_given_as_before(raw: str) -> None:
    assert ScopeItem.parse_given(raw) == ScopeItem.parse(raw)
