"""The confidence rules (errnote.model.confidence) on real notebooks, through the API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.errors import ErrnoteError, UsageError
from errnote.model.entry import Relation, Status
from errnote.notebook import Notebook
from errnote.prompt.inject import select
from errnote.prompt.selection import Options
from errnote.storage.store import read_entry
from tests.conftest import git


def test_confirm_raises_counts_and_dates_it_in_the_file(nb: Notebook) -> None:
    lesson = nb.add("lesson", "Pin the toolchain with rust-toolchain.toml", reason="builds drift")
    assert lesson.confidence == 0.6
    done = nb.confirm(lesson.id, note="still true after the 1.80 upgrade")
    assert done.confidence == 0.7 and done.confirmed == 1 and done.last_confirmed is not None
    path = nb.locate_entry(lesson.id)[1]
    on_disk = read_entry(path)
    assert (on_disk.confidence, on_disk.confirmed) == (0.7, 1)
    text = path.read_text(encoding="utf-8")
    assert "confirmed: 1" in text and "last_confirmed:" in text
    assert "(confidence 0.60 -> 0.70): still true after the 1.80 upgrade" in text
    assert nb.confirm(lesson.id).confirmed == 2


def test_confidence_stops_at_one(nb: Notebook) -> None:
    entry = nb.add("convention", "Use pnpm", confidence=0.95)
    assert nb.confirm(entry.id).confidence == 1.0
    assert nb.confirm(entry.id).confidence == 1.0  # at the cap: stays, still counted
    assert nb.feedback(entry.id, helped=True).confidence == 1.0
    assert nb.get(entry.id).confirmed == 3


def test_confidence_stops_at_zero(nb: Notebook) -> None:
    entry = nb.add("lesson", "Retry the flaky test", confidence=0.1)
    assert nb.contradict(entry.id).confidence == 0.0
    assert nb.contradict(entry.id).confidence == 0.0
    assert nb.feedback(entry.id, helped=False).confidence == 0.0
    assert nb.get(entry.id).contradicted == 3


def test_contradict_by_links_both_entries(nb: Notebook) -> None:
    old = nb.add("lesson", "Run the tests with tox")
    new = nb.add("lesson", "Run the tests with nox, tox is gone")
    done = nb.contradict(old.id, by=new.id[:6], note="tox.ini was deleted")
    assert done.confidence == 0.45 and done.contradicted == 1
    assert done.links_to(Relation.CONTRADICTS) == [new.id]
    assert nb.get(new.id).links_to(Relation.CONTRADICTS) == [old.id]
    assert nb.get(new.id).confidence == 0.6  # the one that contradicts is not lowered
    assert f"by {new.id}; tox.ini was deleted" in nb.get(old.id).body


def test_contradict_refuses_itself_and_writes_nothing(nb: Notebook) -> None:
    entry = nb.add("lesson", "Use make build")
    before = nb.locate_entry(entry.id)[1].read_text(encoding="utf-8")
    with pytest.raises(ErrnoteError, match="itself"):
        nb.contradict(entry.id, by=entry.id)
    assert nb.locate_entry(entry.id)[1].read_text(encoding="utf-8") == before


def test_feedback_moves_by_its_own_steps(nb: Notebook) -> None:
    entry = nb.add("tool-quirk", "cargo needs OPENSSL_DIR on this box")  # starts at 0.7
    helped = nb.feedback(entry.id, helped=True, note="fixed the build")
    assert helped.confidence == 0.9 and helped.confirmed == 1 and helped.last_confirmed is not None
    misled = nb.feedback(entry.id, helped=False)
    assert misled.confidence == 0.7 and misled.contradicted == 1
    assert "Helped " in misled.body and "Misled " in misled.body


def test_steps_come_from_the_config(nb: Notebook) -> None:
    settings = "confidence:\n  confirm: 0.25\n  contradict: 0.5\n"
    (nb.root / "config.yaml").write_text(settings, encoding="utf-8")
    fresh = Notebook(nb.root)
    entry = fresh.add("lesson", "Use uv, not pip")
    assert fresh.confirm(entry.id).confidence == 0.85
    assert fresh.contradict(entry.id).confidence == 0.35


def test_a_bad_step_in_the_config_takes_its_default(nb: Notebook) -> None:
    (nb.root / "config.yaml").write_text("confidence:\n  confirm: 7\n", encoding="utf-8")
    fresh = Notebook(nb.root)
    assert "confidence.confirm" in " ".join(fresh.config.warnings())
    entry = fresh.add("lesson", "Use uv, not pip")
    assert fresh.confirm(entry.id).confidence == 0.7


def test_supersede_then_search_and_inject_hide_the_old_entry(nb: Notebook) -> None:
    old = nb.add("lesson", "Deploy the frobnicator with fabric scripts", scope=["repo"])
    new = nb.add("lesson", "Deploy the frobnicator with ansible playbooks", scope=["repo"])
    assert {h.id for h in nb.search("deploy frobnicator")} == {old.id, new.id}
    lowered, linked = nb.supersede(old.id, new.id)
    assert lowered.status is Status.SUPERSEDED and lowered.confidence == 0.45
    assert linked.links_to(Relation.SUPERSEDES) == [old.id]
    assert [h.id for h in nb.search("deploy frobnicator")] == [new.id]
    assert old.id in {h.id for h in nb.search("deploy frobnicator", include_all=True)}
    assert select(nb, Options()).ids == [new.id]
    found = select(nb, Options(query="deploy the frobnicator", always=False)).section("query")
    assert [p.entry.id for p in found] == [new.id]
    assert old.id not in select(nb, Options(query="deploy the frobnicator")).ids
    with pytest.raises(ErrnoteError, match="superseded already"):
        nb.supersede(old.id, new.id)


def test_the_history_reads_in_git_log(repo: Path, nb: Notebook) -> None:
    entry = nb.add("lesson", "Run make build, not cargo build")
    git(repo, "add", ".errnote")
    git(repo, "commit", "-q", "-m", "lesson")
    nb.confirm(entry.id, note="held on the release branch")
    git(repo, "commit", "-q", "-am", "confirm")
    log = git(repo, "log", "-p", "-1")
    assert "+confirmed: 1" in log and "-confidence: 0.6" in log and "+confidence: 0.7" in log
    assert "held on the release branch" in log


def test_cli_confirm_contradict_supersede_feedback(in_repo: Path, nb: Notebook) -> None:
    runner = CliRunner()
    a = nb.add("lesson", "Use the staging database for migrations").id
    b = nb.add("lesson", "Use a throwaway database for migrations").id
    done = runner.invoke(app, ["confirm", a, "--note", "ok", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["confidence"] == 0.7
    said = runner.invoke(app, ["contradict", a, "--by", b])
    assert said.exit_code == 0 and "0.70 -> 0.55" in said.stderr
    both = runner.invoke(app, ["feedback", a])
    assert both.exit_code == UsageError.exit_code and "--helped" in both.stderr
    assert "Traceback" not in both.output
    moved = runner.invoke(app, ["supersede", a, b, "--json"])
    assert moved.exit_code == 0, moved.output
    shown = json.loads(moved.stdout)
    assert shown["superseded"]["status"] == "superseded" and shown["by"]["id"] == b
    missing = runner.invoke(app, ["confirm", "ffffffff"])
    assert missing.exit_code == 1 and "no entry" in missing.stderr and "Traceback" not in missing.output


#: What `errnote init` wrote before the `hooks:` section (and, cut before `confidence:`, before that).
_INIT_WITHOUT_HOOKS = """\
# errnote settings for this notebook. Every key is optional; these are the defaults.
inject:
  floor: 0.5            # entries below this confidence never reach a prompt
  recent_days: 7        # mistakes and corrections this recent are always shown
  max_per_section: 5    # entries per section of the snippet
  budget: 8000          # characters (about 2,000 tokens); whole entries are dropped past it
search:
  limit: 10             # hits shown by `errnote search`
confidence:             # how far each event moves an entry's confidence (kept within 0..1)
  confirm: 0.1          # errnote confirm
  contradict: 0.15      # errnote contradict (lowered)
  supersede: 0.15       # errnote supersede (the old entry, lowered)
  helped: 0.2           # errnote feedback --helped
  misled: 0.2           # errnote feedback --misled (lowered)
"""


@pytest.mark.parametrize(
    "earlier",
    [_INIT_WITHOUT_HOOKS[: _INIT_WITHOUT_HOOKS.index("confidence:")], _INIT_WITHOUT_HOOKS],
    ids=["before-confidence", "before-hooks"],
)
def test_the_settings_init_wrote_before_are_the_defaults(tmp_path: Path, earlier: str) -> None:
    """A notebook made before `confidence:` or `hooks:` existed keeps reading its settings without YAML."""
    import subprocess
    import sys

    from errnote.config import DEFAULT_CONFIG_TEXT

    assert "hooks:\n  guard: ask" in DEFAULT_CONFIG_TEXT  # what init writes now lists every section
    path = tmp_path / "config.yaml"
    path.write_text(earlier, encoding="utf-8")
    code = (
        "import sys\nfrom pathlib import Path\nfrom errnote.config import Config, load_config\n"
        f"assert load_config(Path({str(path)!r})) == Config()\nprint('yaml' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
