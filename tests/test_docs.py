"""The README, the changelog and docs/ link only inside the repository, to files and headings that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def _anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, blanks as dashes."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # a `# comment` in a code block is no heading
    headings = re.findall(r"^#+ (.+)$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_stays_in_the_repository_and_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text and "shared/" not in text  # a clone has no ../shared
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.is_relative_to(ROOT), (page.name, target)
        assert linked.exists(), (page.name, target)
        if anchor:
            assert anchor in _anchors(linked.read_text(encoding="utf-8")), (page.name, target)


def test_the_readme_and_the_changelog_stay_short() -> None:
    """Issue 18's sizes: a newcomer's page and one line per change; reference material goes to docs/."""
    assert (ROOT / "README.md").stat().st_size <= 16_000
    assert (ROOT / "CHANGELOG.md").stat().st_size <= 12_000
