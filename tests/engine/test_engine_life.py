"""The engine's life cycle, with real processes: started on demand, answering, seeing edits by
hand, idle exit, stale socket, crash and restart, concurrent clients, two notebooks, a deleted
notebook, a hung engine, permissions, and the switches that keep it off."""

# ruff: noqa: F811 - the fixtures are imported from engine_support (a conftest.py here would shadow
# the suite's own `conftest` module), and each test names them as parameters
from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from engine_support import (  # noqa: F401 - fixtures
    Engines,
    engine_env,
    engines,
    hook_input,
    off,
    project,
    run,
    served,
    until_served,
    wait_for,
)

from errnote.engine import client, settings

PROMPT = "cargo build --workspace --all-features fails with a TLS backend conflict"


def _prompt(project: Path, session: str) -> str:
    return hook_input(project, session, prompt=PROMPT)


def _pid(root: Path) -> int | None:
    found = client.status(root)
    return int(found["pid"]) if found else None


def test_a_call_with_no_engine_answers_itself_and_starts_one_that_answers_the_next(
    project: Path, engines: Engines
) -> None:
    root = project / ".errnote"
    engines.watch(root)
    want = off(["hook", "user-prompt"], project, _prompt(project, "ref"))
    assert "additionalContext" in want.out
    first = run(["hook", "user-prompt"], project, _prompt(project, "one"))
    assert first.out == want.out and first.code == 0
    wait_for(lambda: client.status(root), what="the engine started in the background")
    before = served(root)
    second = run(["hook", "user-prompt"], project, _prompt(project, "two"))
    assert second.out == want.out
    assert served(root) == before + 1
    assert not (settings.engine_dir(root) / "starting").exists()  # the engine took its mark away


def test_an_edit_made_by_hand_is_seen_by_the_next_search(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    engines.start(project)
    query = ["search", "--json", "--", "quokka hibernation"]
    assert run(query, project).out.strip() == "[]"
    entry = next((root / "entries" / "lessons").glob("d805f11243-*.md"))
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("title: ", "title: Quokka hibernation, then ", 1), encoding="utf-8")
    before = served(root)
    seen = run(query, project)
    assert "d805f11243" in seen.out and "Quokka hibernation" in seen.out
    assert served(root) == before + 1
    assert seen.out == off(query, project).out


def test_an_edit_made_by_hand_reaches_the_hooks_and_inject(project: Path, engines: Engines) -> None:
    """The engine keeps the entries it read between requests: an edit must still be seen."""
    root = project / ".errnote"
    engines.start(project)
    assert run(["inject"], project).out == off(["inject"], project).out
    entry = next((root / "entries" / "conventions").glob("64efc207d7-*.md"))  # pinned: always shown
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("title: ", "title: Quokka rule, ", 1), encoding="utf-8")
    got = run(["inject"], project)
    assert "Quokka rule" in got.out and got.out == off(["inject"], project).out
    hook = run(["hook", "session-start"], project, hook_input(project, "after-edit", source="startup"))
    assert "Quokka rule" in hook.out
    entry.unlink()  # and a file removed by hand
    gone = run(["inject"], project)
    assert "Quokka rule" not in gone.out and gone.out == off(["inject"], project).out
    assert served(root) == 4


def test_an_idle_engine_exits_and_takes_its_socket_with_it(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    engines.start(project, "--idle", "1")
    proc = engines.procs[-1]
    assert proc.wait(timeout=60) == 0
    assert not settings.socket_path(root).exists()
    assert not (settings.engine_dir(root) / "info.json").exists()


def test_a_stale_socket_file_is_answered_around_and_replaced(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    engines.watch(root)
    path = settings.socket_path(root)
    path.parent.mkdir(parents=True, mode=0o700)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # a socket file with no process behind it: what a crash leaves
    stale.close()
    want = off(["search", "--json", "--", "all-features"], project)
    got = run(["search", "--json", "--", "all-features"], project)
    assert got.out == want.out and got.code == 0
    wait_for(lambda: client.status(root), what="an engine on the replaced socket")

    def again() -> None:
        assert run(["search", "--json", "--", "all-features"], project).out == want.out

    assert until_served(again, root) >= 1


def test_a_crashed_engine_is_replaced_and_no_answer_is_lost(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    first = engines.start(project)
    os.kill(first, signal.SIGKILL)
    engines.procs[-1].wait(timeout=30)
    assert settings.socket_path(root).exists()  # left behind
    want = off(["hook", "user-prompt"], project, _prompt(project, "ref"))
    got = run(["hook", "user-prompt"], project, _prompt(project, "after-crash"))
    assert got.out == want.out
    second = wait_for(lambda: _pid(root), what="a new engine")
    assert second != first
    assert run(["hook", "user-prompt"], project, _prompt(project, "again")).out == want.out
    assert served(root) == 1


def test_concurrent_clients_all_get_the_right_answer(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    engines.start(project)
    want = off(["hook", "user-prompt"], project, _prompt(project, "ref")).out
    want_search = off(["search", "--json", "--", "migration NOT NULL"], project).out

    def call(i: int) -> tuple[str, str]:
        if i % 2:
            return run(["hook", "user-prompt"], project, _prompt(project, f"s{i}")).out, want
        return run(["search", "--json", "--", "migration NOT NULL"], project).out, want_search

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(call, range(12)))
    assert all(got == expected for got, expected in results)

    # On a machine loaded past the client's patience every call may have answered itself.
    def again() -> None:
        assert run(["search", "--json", "--", "migration NOT NULL"], project).out == want_search

    assert served(root) >= 1 or until_served(again, root) >= 1


def test_two_notebooks_have_two_engines_each_answering_for_its_own(tmp_path: Path, engines: Engines) -> None:
    from engine_support import SAMPLE

    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(SAMPLE, a)
    shutil.copytree(SAMPLE, b)
    for entry in (b / ".errnote" / "entries").rglob("*.md"):
        if "all-features" in entry.read_text(encoding="utf-8"):
            entry.unlink()
    pids = {engines.start(a), engines.start(b)}
    assert len(pids) == 2
    query = ["search", "--json", "--", "cargo build --all-features"]
    want_a, want_b = off(query, a).out, off(query, b).out
    assert want_a != want_b
    for where, want in ((a, want_a), (b, want_b)):

        def again(where: Path = where, want: str = want) -> None:
            assert run(query, where).out == want

        assert until_served(again, where / ".errnote") >= 1


def test_an_engine_whose_notebook_is_deleted_exits(project: Path, engines: Engines) -> None:
    engines.start(project)
    shutil.rmtree(project / ".errnote")
    assert engines.procs[-1].wait(timeout=60) == 0


def test_a_hung_engine_is_given_up_on_quickly_and_the_hook_answers_itself(
    project: Path, engines: Engines
) -> None:
    root = project / ".errnote"
    config = root / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "engine:\n  timeout: 60\n", encoding="utf-8")
    pid = engines.start(project)
    want = off(["hook", "user-prompt"], project, _prompt(project, "ref"))
    os.kill(pid, signal.SIGSTOP)  # it still holds the socket: connections are queued, never answered
    try:
        got = run(["hook", "user-prompt"], project, _prompt(project, "hung"), timeout=60)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert got.out == want.out and got.code == 0
    # It did not wait for the 60 s answer timeout: the engine never took the request up.
    assert got.seconds < want.seconds + 30
    assert served(root) == 0  # the request it found on waking was past its client's patience


def test_socket_and_folder_are_the_user_s_alone(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    engines.start(project)
    assert stat.S_IMODE(os.stat(settings.engine_dir(root)).st_mode) == 0o700
    sock = os.stat(settings.socket_path(root))
    assert stat.S_ISSOCK(sock.st_mode) and stat.S_IMODE(sock.st_mode) == 0o600
    assert sock.st_uid == os.getuid()


def test_a_second_engine_for_the_same_notebook_refuses_to_start(project: Path, engines: Engines) -> None:
    engines.start(project)
    again = run(["serve", "--idle", "5"], project, timeout=60)
    assert again.code == 1 and "already serves" in again.err


def test_serve_status_and_stop(project: Path, engines: Engines) -> None:
    assert run(["serve", "--status"], project).code == 1
    engines.start(project)
    status = run(["serve", "--status", "--json"], project)
    assert status.code == 0 and '"running": true' in status.out
    assert run(["serve", "--stop"], project).code == 0
    assert engines.procs[-1].wait(timeout=60) == 0


def test_the_switches_keep_the_engine_off(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    engines.watch(root)
    query = ["search", "--json", "--", "all-features"]
    assert run(query, project, env=engine_env(ERRNOTE_ENGINE="0")).out == off(query, project).out
    config = root / "config.yaml"
    original = config.read_text(encoding="utf-8")
    config.write_text(original + "engine:\n  autostart: false\n", encoding="utf-8")
    run(query, project)
    time.sleep(3)
    assert client.status(root) is None and not (settings.engine_dir(root) / "starting").exists()
    config.write_text(original + "engine:\n  enabled: false\n", encoding="utf-8")
    engines.start(project)
    assert run(query, project).out == off(query, project).out
    assert served(root) == 0


def test_an_engine_started_with_another_environment_does_not_answer(project: Path, engines: Engines) -> None:
    root = project / ".errnote"
    engines.start(project, env=engine_env(ERRNOTE_AUTHOR="someone else"))
    query = ["search", "--json", "--", "all-features"]
    assert run(query, project).out == off(query, project).out
    assert served(root) == 0 and client.status(root) is not None


def test_what_only_changes_rich_s_view_keeps_the_hooks_answered_not_search(
    project: Path, engines: Engines
) -> None:
    """A hook's answer is JSON made without rich: an engine started with another COLUMNS and TERM,
    without CLAUDE_PROJECT_DIR (as the MCP server may start it), answers the hooks; `search`, whose
    output rich lays out, only in the very same environment."""
    root = project / ".errnote"
    engines.start(project, env=engine_env(COLUMNS="80", TERM="dumb"))
    hook_env = engine_env(CLAUDE_PROJECT_DIR=str(project))
    want = off(["hook", "user-prompt"], project, _prompt(project, "ref"))
    attempts = iter(range(1_000))

    def hook() -> None:  # a loaded machine may let a call answer itself (or the engine be starting)
        got = run(["hook", "user-prompt"], project, _prompt(project, f"s{next(attempts)}"), env=hook_env)
        assert (got.code, got.out) == (want.code, want.out)

    before = until_served(hook, root)
    assert before >= 1
    query = ["search", "--", "all-features"]
    assert run(query, project).out == off(query, project).out  # COLUMNS=200 here
    assert served(root) == before


def test_a_platform_without_unix_sockets_answers_in_process(project: Path) -> None:
    code = (
        "import _socket, socket, sys\n"
        "del _socket.AF_UNIX, socket.AF_UNIX\n"  # what platforms without Unix sockets look like
        "sys.argv = ['errnote', 'search', '--json', '--', 'all-features']\n"
        "from errnote.cli import main\n"
        "main()\n"
    )
    env = engine_env()
    done = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, env=env)
    want = off(["search", "--json", "--", "all-features"], project)
    assert done.returncode == 0 and done.stdout == want.out
    assert not settings.engine_dir(project / ".errnote").exists()


def test_a_notebook_deep_enough_for_a_long_socket_path_is_served(tmp_path: Path, engines: Engines) -> None:
    from engine_support import SAMPLE

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    shutil.copytree(SAMPLE, deep)
    assert len(os.fsencode(settings.socket_path(deep / ".errnote"))) > settings.SOCKET_PATH_MAX
    engines.start(deep)
    query = ["search", "--json", "--", "all-features"]
    assert run(query, deep).out == off(query, deep).out
    assert served(deep / ".errnote") == 1


def test_an_engine_whose_code_changed_steps_aside(project: Path, engines: Engines, tmp_path: Path) -> None:
    """An engine refuses a client that runs other code; when its own code changed since it started
    (an upgrade, a checkout, a module edited in place), it also exits, so the next
    call starts one running the clients' code. Refusing a client with other settings, it stays."""
    import errnote

    copy = tmp_path / "copy"
    shutil.copytree(
        Path(errnote.__file__).parent, copy / "errnote", ignore=shutil.ignore_patterns("__pycache__")
    )
    root = project / ".errnote"
    engines.start(project, env=engine_env(PYTHONPATH=str(copy)))  # the copy's code, not the clients'
    query = ["search", "--json", "--", "all-features"]
    want = off(query, project).out
    assert run(query, project, env=engine_env(ERRNOTE_CLUSTER="other")).out == want  # other settings
    status = client.status(root)
    assert status is not None and status["refused"] >= 1 and status["served"] == 0  # refused, still up
    (copy / "errnote" / "engine" / "__pycache__").mkdir()  # bytecode cached: no change of code
    assert run(query, project).out == want
    assert engines.procs[-1].poll() is None  # refused (another errnote), still up
    module = copy / "errnote" / "search" / "ranking.py"  # its code edited in place, deep in the tree
    module.write_text(module.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert run(query, project).out == want  # answered in process, rightly
    wait_for(lambda: engines.procs[-1].poll() is not None, what="the engine to exit")
    assert engines.procs[-1].returncode == 0
