"""Issue 20: inputs a hostile or careless user gives errnote, one class of them per section.

Each class is tried with the example the issue gives and at least one more member of it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import settle
from typer.testing import CliRunner

from errnote.cli.app import app
from errnote.notebook import Notebook
from errnote.redact.secrets import redact

GHP = "ghp_" + "Zk3mQ9xW2vL7pR4tY8nB1cF6hJ0dS5gA2eU9"  # the shape of a GitHub token (made up)
XOXB = "xoxb-" + "73915048261-4820375916-Qm7Zt2Kx9LpR4vWc8Nb3Yh6D"  # the shape of a Slack bot token


def run(runner: CliRunner, *args: str, input: str | bytes | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=input)
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def hand_written(
    nb: Notebook, name: str, front: str, body: str = "", folder: str = "lessons", *, created: bool = True
) -> Path:
    """An entry file written by hand (not through errnote, so nothing was masked or checked)."""
    path = nb.store.entries_dir / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    prov = "provenance:\n  created: 2026-11-20T10:00:00Z\n" if created else ""
    path.write_text(f"---\n{front.strip()}\n{prov}---\n\n{body}\n", encoding="utf-8")
    return path


def hook(runner: CliRunner, event: str, payload: dict[str, str]) -> tuple[int, str]:
    result = runner.invoke(app, ["hook", event], input=json.dumps(payload))
    return result.exit_code, result.stdout


# --- 1. passwords with punctuation ---------------------------------------------------------------

PUNCTUATED = [
    # (text, the secret in it): the examples ...
    ("DB_PASSWORD=Xk9;mP2$vL7q", "Xk9;mP2$vL7q"),
    ("PASSWORD=ab&cdefgh12345", "ab&cdefgh12345"),
    ("api_key=sk9(abcdef)ghijkl", "sk9(abcdef)ghijkl"),
    ("DB_PASSWORD=Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("SECRET_KEY=django-insecure-&x8#k@2!zq", "django-insecure-&x8#k@2!zq"),
    # ... and more of the class: other punctuation, other labels, quoted values with blanks
    ("REDIS_PASSWORD=q7,Lm2|x9{zz}w", "q7,Lm2|x9{zz}w"),
    ("export PGPASSWORD=a<b>c9d1e2f", "a<b>c9d1e2f"),
    ("db_pass=x[1]y2z3w4 and more text", "x[1]y2z3w4"),
    ("AUTH_TOKEN=7f,k;e&y|9(0)", "7f,k;e&y|9(0)"),
    ("mysql -p'Sec ret99' shop", "Sec ret99"),
    ("mysql -u root -p'-Secret99' shop", "-Secret99"),
    ("ADMIN_PASSWORD: 'p;a&s s(1)9'", "p;a&s s(1)9"),
]


@pytest.mark.parametrize(("text", "secret"), PUNCTUATED)
def test_a_secret_assignment_is_masked_whole_whatever_its_punctuation(text: str, secret: str) -> None:
    masked = redact(text)
    assert secret not in masked and "[REDACTED]" in masked
    for piece in re.split(r"[^A-Za-z0-9]+", secret):
        if len(piece) >= 2:
            assert piece not in masked.replace("[REDACTED]", ""), (piece, masked)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("?password=abc123xyz&user=alice", "&user=alice"),  # the next parameter is not the password's
        ("(see password=hunter22x)", ")"),  # the bracket of the prose around it
        ("password=getpass();", "password=getpass();"),  # code that reads a password
        ('os.environ["DB_PASSWORD"]', 'os.environ["DB_PASSWORD"]'),
        ("PASSWORD=${DB_PASSWORD}", "PASSWORD=${DB_PASSWORD}"),
        ("PASSWORD=<your-password>", "PASSWORD=<your-password>"),
        ("`PASSWORD=s3cretvalue9` in the docs", "` in the docs"),
    ],
)
def test_what_follows_or_is_no_secret_is_left_alone(text: str, kept: str) -> None:
    assert kept in redact(text)


def test_a_punctuated_password_reaches_neither_the_file_nor_the_prompt(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    error = "DB_PASSWORD=Xk9;mP2$vL7q\nFATAL: password authentication failed"
    code, _, err = run(runner, "add", "mistake", "Migrations against prod fail", "--error", error)
    assert code == 0, err
    files = "".join(p.read_text() for p in nb.store.entries_dir.rglob("*.md"))
    assert "Xk9" not in files and "mP2$vL7q" not in files
    code, out, _ = run(runner, "inject")
    assert code == 0 and "Error seen" in out and "mP2$vL7q" not in out and "Xk9" not in out


# --- 2. reads mask what writes would ------------------------------------------------------------


@pytest.fixture
def leaky(nb: Notebook) -> Path:
    """A hand-written entry with tokens in its title, body and error (errnote never wrote it)."""
    front = (
        "id: 'abcdef0001'\ntype: lesson\n"
        f"title: Rotate the deploy token {GHP} after the zyxwq incident\n"
        f"error: 'curl -H \"Authorization: Bearer {GHP}\" failed'\n"
        "reason: the zyxwq token leaked"
    )
    return hand_written(nb, "abcdef0001-rotate.md", front, f"The bot used {XOXB} for zyxwq alerts.")


@pytest.mark.parametrize(
    "args",
    [
        ["show", "abcdef0001"],
        ["show", "abcdef0001", "--json"],
        ["list"],
        ["list", "--json"],
        ["search", "zyxwq token"],
        ["search", "zyxwq token", "--json"],
        ["search", "zyxwq alerts bot", "--json"],
        ["inject"],
        ["inject", "--format", "xml", "--query", "zyxwq token"],
    ],
)
def test_every_read_command_masks_a_hand_written_entry(
    runner: CliRunner, in_repo: Path, leaky: Path, args: list[str]
) -> None:
    code, out, err = run(runner, *args)
    assert code == 0, err
    assert "abcdef0001" in out or "zyxwq" in out
    assert GHP not in out + err and XOXB not in out + err and GHP[4:20] not in out


def test_the_hooks_and_the_caches_hold_no_raw_secret(runner: CliRunner, in_repo: Path, leaky: Path) -> None:
    for event, extra in (("session-start", {}), ("user-prompt", {"prompt": "rotate the zyxwq token"})):
        code, out = hook(runner, event, {"session_id": f"s-{event}", "cwd": str(in_repo), **extra})
        assert code == 0 and "abcdef0001" in out and GHP not in out and XOXB not in out
    run(runner, "list")
    run(runner, "search", "zyxwq token")
    cache = leaky.parents[2] / "cache"
    for path in cache.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert GHP.encode() not in data and XOXB.encode() not in data, path


# --- 3. the entries folder is walked within the notebook ---------------------------------------


def test_a_link_to_the_root_folder_is_not_walked(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    run(runner, "add", "lesson", "Vendor the zyxwq protobufs")
    (nb.store.entries_dir / "lessons" / "rootlink").symlink_to("/", target_is_directory=True)
    started = time.monotonic()
    for args in (["list"], ["search", "zyxwq protobufs"], ["inject"]):
        code, out, err = run(runner, *args)
        assert code == 0 and "zyxwq" in out, err
        assert "rootlink" in err and "symbolic link" in err
    assert time.monotonic() - started < 30  # (was 46 s for `list` alone, then exit 1)
    code, out = hook(
        runner, "user-prompt", {"session_id": "r", "cwd": str(in_repo), "prompt": "zyxwq protobufs"}
    )
    assert code == 0 and "zyxwq" in out


def test_another_notebooks_entries_are_not_served_as_this_ones(
    runner: CliRunner, in_repo: Path, nb: Notebook, tmp_path: Path
) -> None:
    other, _ = Notebook.init(tmp_path / "other")
    theirs = other.add("lesson", "Their qwvxz rule")
    (nb.store.entries_dir / "lessons").mkdir(exist_ok=True)
    (nb.store.entries_dir / "lessons" / "theirs").symlink_to(
        other.store.entries_dir, target_is_directory=True
    )
    (nb.store.entries_dir / "borrowed").symlink_to(
        other.store.entries_dir / "lessons", target_is_directory=True
    )
    for args in (["list", "--json"], ["search", "qwvxz rule", "--json"], ["inject", "--json"]):
        code, out, err = run(runner, *args)
        assert code == 0 and theirs.id not in out, (args, out)
        assert "theirs" in err and "borrowed" in err
    code, _, err = run(runner, "show", theirs.id)
    assert code == 1 and "no entry" in err


def test_a_linked_file_is_read_only_when_it_lies_inside_the_notebook(
    runner: CliRunner, in_repo: Path, nb: Notebook, tmp_path: Path
) -> None:
    front = "id: 'abcdef0002'\ntype: lesson\ntitle: Outside qwvxz secret rule"
    outside = hand_written(nb, "abcdef0002-outside.md", front)
    target = tmp_path / "outside.md"
    outside.rename(target)
    outside.symlink_to(target)  # a file link out of the repository (/etc/passwd, ~/.ssh/...)
    (nb.store.entries_dir / "lessons" / "abcdef0003-etc.md").symlink_to("/etc/hostname")
    front = "id: 'abcdef0004'\ntype: lesson\ntitle: Shared qwvxz rule inside"
    shared = hand_written(nb, "abcdef0004-shared.md", front, folder="../shared")
    (nb.store.entries_dir / "lessons" / "abcdef0004-shared.md").symlink_to(shared)
    for args in (["list", "--json"], ["search", "qwvxz rule", "--json"], ["inject", "--json"]):
        code, out, err = run(runner, *args)
        assert code == 0, err
        assert "abcdef0002" not in out and "Outside" not in out and "abcdef0004" in out, args
        assert "abcdef0002-outside.md" in err and "abcdef0003-etc.md" in err and "outside the notebook" in err
    code, out = hook(runner, "session-start", {"session_id": "l", "cwd": str(in_repo)})
    assert code == 0 and "abcdef0004" in out and "Outside" not in out


def test_add_refuses_to_write_through_a_linked_type_folder(
    runner: CliRunner, in_repo: Path, nb: Notebook, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "shared-lessons"
    elsewhere.mkdir()
    lessons = nb.store.entries_dir / "lessons"
    if lessons.exists():
        lessons.rmdir()
    lessons.symlink_to(elsewhere, target_is_directory=True)
    code, _, err = run(runner, "add", "lesson", "A lesson that would vanish")
    assert code == 1 and "symbolic link" in err and "lessons" in err
    assert list(elsewhere.iterdir()) == []


@pytest.fixture
def as_nobody() -> Iterator[Path]:
    """A folder anybody may enter, and the rights of an unprivileged user inside the block (the
    tests may run as root, whom no permission stops)."""
    folder = Path(tempfile.mkdtemp(prefix="errnote-perm-"))
    folder.chmod(0o755)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


@pytest.mark.skipif(not hasattr(os, "seteuid"), reason="POSIX permissions")
def test_an_unreadable_folder_is_skipped_with_a_warning(runner: CliRunner, as_nobody: Path) -> None:
    nb, _ = Notebook.init(as_nobody)
    nb.add("lesson", "Vendor the zyxwq protobufs")
    locked = nb.store.entries_dir / "private"
    locked.mkdir()
    nb2 = Notebook(nb.root)
    nb2.add("lesson", "Another zyxwq lesson")
    from errnote.storage.watch import _inotify

    _inotify()  # libc loaded, and (below) every module imported, while the files may still be read
    for args in (["list"], ["search", "zyxwq protobufs"], ["inject"]):
        assert run(runner, "--notebook", str(nb.root), *args)[0] == 0
    uid = 65534
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", f"{uid}:{uid}", str(as_nobody)], check=True)
    locked.chmod(0)

    switched = os.geteuid() == 0
    if switched:
        os.seteuid(uid)
    try:
        try:
            os.listdir(locked)
        except PermissionError:
            pass
        else:
            pytest.skip("this user can read any folder")
        for args in (["list"], ["search", "zyxwq protobufs"], ["inject"]):
            code, out, err = run(runner, "--notebook", str(nb.root), *args)
            assert code == 0 and "zyxwq" in out, (args, err)
            assert "private" in err and "cannot read" in err.lower()
    finally:
        if switched:
            os.seteuid(0)
        locked.chmod(0o755)


# --- 4. size -----------------------------------------------------------------------------------


def test_captured_output_is_cut_to_its_head_and_tail(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    log = "".join(f"line {i} of the build log\n" for i in range(200_000))  # about 5 MB
    code, out, err = run(
        runner, "add", "mistake", "The build log exploded", "--error", "-", "--json", input=log
    )
    assert code == 0, err
    assert "cut" in err and "error" in err
    data = json.loads(out)
    assert data["error"].startswith("line 0 of the build log")
    assert data["error"].rstrip().endswith("line 199999 of the build log")
    assert "lines cut" in data["error"] and len(data["error"]) < 200_000
    assert Path(data["path"]).stat().st_size < 1_000_000


@pytest.mark.parametrize("option", ["--body", "--reason", "--fix"])
def test_an_oversized_text_is_refused_and_nothing_written(
    runner: CliRunner, in_repo: Path, nb: Notebook, option: str
) -> None:
    big = "word " * 400_000  # 2 MB
    code, _, err = run(runner, "add", "lesson", "Too much", option, big)
    assert code != 0 and option.lstrip("-") in err and "KB" in err and "Traceback" not in err
    assert list(nb.store.entries_dir.rglob("*.md")) == []


def test_an_oversized_hand_written_file_is_skipped_with_a_warning(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    run(runner, "add", "lesson", "Vendor the zyxwq protobufs")
    front = "id: 'abcdef0005'\ntype: lesson\ntitle: A huge zyxwq dump"
    huge = hand_written(nb, "abcdef0005-huge.md", front, "zyxwq protobufs dump\n" * 200_000)  # 4 MB
    for args in (["list", "--json"], ["search", "zyxwq protobufs", "--json"], ["inject", "--json"]):
        code, out, err = run(runner, *args)
        assert code == 0 and "Vendor the zyxwq" in out and "abcdef0005" not in out, args
        assert huge.name in err and "MB" in err
    code, _, err = run(runner, "show", "abcdef0005")
    assert code == 1 and "MB" in err and huge.name in err
    code, out = hook(
        runner, "user-prompt", {"session_id": "h", "cwd": str(in_repo), "prompt": "zyxwq protobufs"}
    )
    assert code == 0 and "Vendor the zyxwq" in out


def test_an_unchanged_file_is_scanned_for_secrets_once(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    from errnote.redact import secrets as redact_module

    front = "id: 'abcdef0006'\ntype: lesson\ntitle: Keep the zyxwq build reproducible"
    hand_written(nb, "abcdef0006-big.md", front, "A long explanation of the zyxwq build.\n" * 10_000)
    settle(nb)  # older than a timestamp tick: a file written in the scan's tick is read again (RACY_NS)
    run(runner, "inject")  # the first read of this version of the file
    scanned: list[int] = []
    real = redact_module.find_secrets

    def counting(text: str) -> list[tuple[int, int]]:
        scanned.append(len(text))
        return real(text)

    monkeypatch.setattr(redact_module, "find_secrets", counting)
    for _ in range(2):
        code, out, _ = run(runner, "inject")
        assert code == 0 and "zyxwq" in out
    assert all(n < 100_000 for n in scanned), scanned  # no rescan of the 390 KB body


# --- 5. a bad config value ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ("inject:\n  budget: -5\n", "inject.budget"),
        ("inject:\n  floor: 2\n", "inject.floor"),
        ("inject:\n  max_per_section: many\n", "inject.max_per_section"),
        ("inject:\n  recent_days: 2.5\n", "inject.recent_days"),
        ("search:\n  limit: 0.5\n", "search.limit"),
        ("inject: [1, 2]\n", "inject"),
        ("inject: [broken\n", "not YAML"),
        ("- just\n- a list\n", "mapping"),
        ("<<<<<<< ours\ninject:\n  budget: 5\n=======\ninject:\n  budget: 6\n>>>>>>> theirs\n", "conflict"),
    ],
)
def test_a_bad_config_value_falls_back_to_its_default_with_a_warning(
    runner: CliRunner, in_repo: Path, nb: Notebook, config: str, key: str
) -> None:
    run(runner, "add", "lesson", "Vendor the zyxwq protobufs")
    (nb.root / "config.yaml").write_text(config, encoding="utf-8")
    for args in (["inject"], ["search", "zyxwq protobufs"], ["search", "zyxwq protobufs", "--json"]):
        code, out, err = run(runner, *args)
        assert code == 0 and "zyxwq" in out, (args, err)
        assert "warning" in err and "config.yaml" in err and key in err, err
    code, out = hook(runner, "session-start", {"session_id": "c", "cwd": str(in_repo)})
    assert code == 0 and "zyxwq" in out


def test_a_config_that_is_not_utf8_gives_the_defaults(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    run(runner, "add", "lesson", "Vendor the zyxwq protobufs")
    (nb.root / "config.yaml").write_bytes(b"inject:\n  budget: \xff\xfe\n")
    code, out, err = run(runner, "inject")
    assert code == 0 and "zyxwq" in out and "not UTF-8" in err and "config.yaml" in err


# --- 6. inject --write targets -----------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        ".git/config",
        ".git/hooks/pre-commit",
        ".errnote/config.yaml",
        ".errnote/entries/lessons/x.md",
        "docs/../.git/HEAD",
    ],
)
def test_inject_write_refuses_gits_and_errnotes_own_files(
    runner: CliRunner, in_repo: Path, nb: Notebook, target: str
) -> None:
    run(runner, "add", "lesson", "Vendor the zyxwq protobufs")
    (in_repo / "docs").mkdir(exist_ok=True)
    path = in_repo / target
    before = path.read_bytes() if path.exists() else None
    code, _, err = run(runner, "inject", "--write", target)
    assert code != 0 and "CLAUDE.md" in err and "AGENTS.md" in err and ".mdc" in err, err
    assert (path.read_bytes() if path.exists() else None) == before
    assert run(runner, "list")[0] == 0


def test_inject_write_refuses_a_link_into_git_and_a_file_that_is_not_text(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    run(runner, "add", "lesson", "Vendor the zyxwq protobufs")
    (in_repo / "CLAUDE.md").symlink_to(in_repo / ".git" / "config")
    config = (in_repo / ".git" / "config").read_bytes()
    code, _, err = run(runner, "inject", "--write", "CLAUDE.md")
    assert code != 0 and ".git" in err and (in_repo / ".git" / "config").read_bytes() == config
    image = in_repo / "logo.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    code, _, err = run(runner, "inject", "--write", "logo.png")
    assert code != 0 and "not a text file" in err and "CLAUDE.md" in err
    nul = in_repo / "notes.md"
    nul.write_bytes(b"notes\x00\x00\x00binary")
    code, _, err = run(runner, "inject", "--write", "notes.md")
    assert code != 0 and "not a text file" in err
    assert run(runner, "inject", "--write", "AGENTS.md")[0] == 0


# --- 7. inject --check and the clock -----------------------------------------------------------


def _at(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("fmt", ["markdown", "xml", "mdc"])
def test_inject_check_passes_until_the_notebook_changes(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """$ERRNOTE_NOW stands in for the clock: days later, a file nobody touched is still up to date."""
    run(runner, "add", "mistake", "Ran the zyxwq migration twice", "--fix", "check the lock first")
    today = datetime.now(timezone.utc)
    until = (today + timedelta(days=3)).date().isoformat()
    run(runner, "add", "lesson", "Pin the qwvxz client until 2.0 ships", "--expires", until)
    target = "rules.mdc" if fmt == "mdc" else "CLAUDE.md"
    monkeypatch.setenv("ERRNOTE_NOW", _at(today))
    code, _, err = run(runner, "inject", "--write", target, "--format", fmt)
    assert code == 0, err
    written = (in_repo / target).read_text()
    assert "zyxwq" in written and "qwvxz" in written
    for later in (timedelta(hours=30), timedelta(days=5), timedelta(days=40)):
        monkeypatch.setenv("ERRNOTE_NOW", _at(today + later))
        code, _, err = run(runner, "inject", "--write", target, "--format", fmt, "--check")
        assert code == 0, (later, err)
    run(runner, "add", "mistake", "Another zyxwq failure")
    code, _, err = run(runner, "inject", "--write", target, "--format", fmt, "--check")
    assert code == 1 and "out of date" in err


# --- 8. pipes and narrow terminals ------------------------------------------------------------

LONG_TITLE = (
    "Regenerate the SCANNER lookup tables with make tables after editing the grammar, never by hand, "
    "because the generated offsets must match the parser"
)


def test_piped_list_and_search_print_one_line_per_entry(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    first = nb.add("lesson", LONG_TITLE, fix="run make tables, then commit the generated files")
    second = nb.add("mistake", "Edited the SCANNER tables by hand")
    for args in (["list"], ["search", "scanner tables"], ["list", "--all"]):
        code, out, err = run(runner, *args)
        assert code == 0, err
        lines = out.splitlines()
        assert all(line == line.rstrip() for line in lines), args
        hits = [line for line in lines if "SCANNER" in line]
        assert len(hits) == 2 and all(re.match(r"^[0-9a-f]{10}\t", line) for line in hits), out
        assert any(first.id in line and LONG_TITLE in line for line in hits)
        assert any(second.id in line for line in hits)


def _in_terminal(args: list[str], cwd: Path, columns: int) -> str:
    """Run errnote with its stdout on a pseudo-terminal of `columns` columns; what it showed."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "errnote", *args], cwd=cwd, stdout=follower, stderr=subprocess.DEVNULL, env=env
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", errors="replace").replace("\r\n", "\n")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize("columns", [40, 50])
def test_a_narrow_terminal_wraps_titles_and_keeps_every_column(
    in_repo: Path, nb: Notebook, columns: int
) -> None:
    entry = nb.add("lesson", LONG_TITLE, tags=["build"], tool="make")
    shown = _in_terminal(["list"], in_repo, columns)
    assert entry.id in shown and "title" in shown and "Regenerate" in shown and "parser" in shown, shown
    assert all(len(line) <= columns for line in shown.splitlines()), shown
    found = _in_terminal(["search", "scanner lookup tables"], in_repo, columns)
    assert entry.id in found and "Regenerate" in found, found
    view = _in_terminal(["show", entry.id], in_repo, columns)
    # Every line fits but the file's path, which is never broken (it copies and pastes whole).
    path = str(nb.store.path_for(entry))
    assert all(len(line) <= columns for line in view.splitlines() if path not in line), view
    assert any(line.strip() == f"file {path}" for line in view.splitlines()), view
    lines = view.splitlines()
    for fact in ("confidence 0.60", "source user", entry.id):
        assert any(fact in line for line in lines), (fact, view)
    assert any(re.search(r"created \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", line) for line in lines), view


def test_piped_show_is_not_wrapped(
    runner: CliRunner, in_repo: Path, nb: Notebook, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    entry = nb.add("lesson", LONG_TITLE, reason="the generated offsets " * 10)
    code, out, _ = run(runner, "show", entry.id)
    assert code == 0 and LONG_TITLE in out.splitlines()
    assert all(line == line.rstrip() for line in out.splitlines())


# --- 9. smaller edges --------------------------------------------------------------------------


def test_add_and_triple_print_the_new_ids_on_stdout(runner: CliRunner, in_repo: Path, nb: Notebook) -> None:
    code, out, err = run(runner, "add", "lesson", "Vendor the zyxwq protobufs")
    assert code == 0 and re.fullmatch(r"[0-9a-f]{10}\n", out) and out.strip() in err
    assert nb.get(out.strip()).title == "Vendor the zyxwq protobufs"
    code, out, _ = run(runner, "triple", "--mistake", "m", "--correction", "c", "--lesson", "l")
    ids = out.split()
    assert (
        code == 0
        and len(ids) == 3
        and [nb.get(i).type.value for i in ids] == ["mistake", "correction", "lesson"]
    )


def test_captured_output_that_is_not_utf8_is_kept_with_replacements(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    raw = b"gcc: error: \xff\xfe invalid byte in file name caf\xe9.c\n"
    code, out, err = run(
        runner, "add", "mistake", "Build broke on a Latin-1 file name", "--error", "-", input=raw
    )
    assert code == 0 and "not UTF-8" in err and "surrogate" not in err
    entry = nb.get(out.strip())
    assert "invalid byte in file name" in entry.error and "\ufffd" in entry.error
    code, _, err = run(runner, "add", "lesson", "Body from a binary", "--body", "-", input=raw)
    assert code != 0 and "not UTF-8" in err and "surrogate" not in err
    code, out, err = run(runner, "search", "-", input=b"invalid byte \xff file name")
    assert code == 0 and "surrogate" not in err and "Latin-1" in out


def test_a_hand_written_entry_without_a_created_time_says_what_to_add(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    hand_written(nb, "abcdef0007-a.md", "id: 'abcdef0007'\ntype: lesson\ntitle: No time", created=False)
    front = "id: 'abcdef0008'\ntype: lesson\ntitle: Empty time\nprovenance:\n  source: user"
    hand_written(nb, "abcdef0008-b.md", front, created=False)
    code, _, err = run(runner, "list")
    assert code == 0
    for name in ("abcdef0007-a.md", "abcdef0008-b.md"):
        line = next(line for line in err.splitlines() if name in line)
        assert "created:" in line and "add" in line and re.search(r"\d{4}-\d\d-\d\dT", line), line


@pytest.mark.parametrize("value", ["", "  ", "!", "! "])
def test_an_empty_scope_is_refused_however_it_is_written(
    runner: CliRunner, in_repo: Path, nb: Notebook, value: str
) -> None:
    code, _, err = run(runner, "add", "lesson", "Scoped", "--scope", value)
    assert code == 2 and "--scope" in err and "empty" in err
    assert list(nb.store.entries_dir.rglob("*.md")) == []


@pytest.mark.parametrize("value", ["", "  ", ", ,"])
def test_an_empty_tag_is_refused(runner: CliRunner, in_repo: Path, nb: Notebook, value: str) -> None:
    code, _, err = run(runner, "add", "lesson", "Tagged", "--tag", value)
    assert code == 2 and "--tag" in err and "empty" in err


INVISIBLE = ["\u202e", "\u202d", "\u2066", "\u200b", "\u200d", "\u2060", "\ufeff", "\u200f"]


def test_invisible_characters_are_stripped_from_titles_and_escaped_elsewhere(
    runner: CliRunner, in_repo: Path, nb: Notebook
) -> None:
    title = "Run the \u202ezyxwq\u202c tests\u200b before\u2066 pushing"
    body = "Look at cfg\u202e.yaml\u200b and the zero\u2060width join"
    code, out, err = run(
        runner, "add", "lesson", title, "--body", body, "--reason", "because\u200d it \u202dbroke"
    )
    assert code == 0, err
    entry = nb.get(out.strip())
    assert entry.title == "Run the zyxwq tests before pushing"
    hand_written(
        nb, "abcdef0009-h.md", "id: 'abcdef0009'\ntype: lesson\ntitle: \"Hand \u202ewritten\u200b zyxwq\""
    )
    assert nb.get("abcdef0009").title == "Hand written zyxwq"
    for args in (["show", entry.id], ["show", entry.id, "--json"], ["list", "--json"], ["inject"],
                 ["search", "zyxwq tests", "--json"], ["inject", "--json"]):  # fmt: skip
        code, out, err = run(runner, *args)
        assert code == 0, err
        assert not any(c in out for c in INVISIBLE), (args, out)
    code, out, _ = run(runner, "show", entry.id)
    assert "U+202E" in out and "U+200B" in out
    data = json.loads(run(runner, "show", entry.id, "--json")[1])
    assert data["body"] == body  # the data is kept; only its display is escaped
