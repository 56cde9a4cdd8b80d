"""The engine's protocol, settings and client imports, on real sockets and real processes."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from errnote.engine import client, protocol, settings


def test_a_message_goes_through_a_real_socket_pair_unchanged() -> None:
    left, right = socket.socketpair()
    with left, right:
        text = "报错 \u202e naïve " + "x" * 200_000
        message = {"kind": "hook", "stdin": text, "argv": ["hook", "user-prompt"]}
        protocol.send(left, message)
        got = protocol.receive(right)
    assert got == {**message, "v": protocol.VERSION}


def test_another_version_a_short_message_and_an_oversized_one_are_refused() -> None:
    left, right = socket.socketpair()
    with left, right:
        body = b'{"v": 99, "kind": "status"}'
        left.sendall(struct.pack(">I", len(body)) + body)
        with pytest.raises(protocol.ProtocolError, match="version"):
            protocol.receive(right)
        left.sendall(struct.pack(">I", protocol.MAX_MESSAGE + 1))
        with pytest.raises(protocol.ProtocolError, match="over the limit"):
            protocol.receive(right)
        left.sendall(struct.pack(">I", 50) + b"{")
        left.close()
        with pytest.raises(protocol.ProtocolError, match="closed"):
            protocol.receive(right)


def test_settings_are_read_from_the_engine_block_and_a_doubtful_block_turns_the_engine_off() -> None:
    text = (
        "inject:\n  floor: 0.5\nengine:\n  autostart: false   # not here\n  idle: 120\n  timeout: 2.5\n"
        "search:\n  limit: 3\n"
    )
    read = settings.parse_settings(text)
    got = (read.enabled, read.autostart, read.idle, read.timeout, read.problems)
    assert got == (True, False, 120.0, 2.5, ())
    assert settings.parse_settings("inject:\n  floor: 0.5\n").enabled
    for doubtful in ("engine: {enabled: false}\n", "engine:\n  enabled: maybe\n", "engine:\n  idle: -3\n",
                     "engine:\n  enable: false\n"):  # fmt: skip
        read = settings.parse_settings(doubtful)
        assert not read.enabled and not read.autostart and read.problems, doubtful


def test_the_engine_block_is_no_unknown_setting_for_the_rest_of_errnote(tmp_path: Path) -> None:
    from errnote.config import load_config

    path = tmp_path / "config.yaml"
    path.write_text("engine:\n  idle: 60\nsearch:\n  limit: 3\n", encoding="utf-8")
    config = load_config(path)
    assert config.unknown == () and config.search_limit == 3 and not config.warnings()


def test_the_client_knows_the_store_s_names_and_the_hook_events() -> None:
    from errnote.integrations.claude_hooks import HOOK_EVENTS
    from errnote.storage import layout as store

    assert (settings.NOTEBOOK_DIRNAME, settings.ENTRIES_DIRNAME, settings.CACHE_DIRNAME) == (
        store.NOTEBOOK_DIRNAME,
        store.ENTRIES_DIRNAME,
        store.CACHE_DIRNAME,
    )
    assert tuple(client.HOOK_EVENTS) == tuple(HOOK_EVENTS)
    from errnote.integrations.mcp_server import READS

    assert tuple(client.TOOLS) == tuple(READS)


def test_the_client_finds_the_notebook_as_notebook_locate_does(tmp_path: Path) -> None:
    from errnote.notebook import Notebook

    nb, _ = Notebook.init(tmp_path / "repo")
    deep = tmp_path / "repo" / "src" / "a"
    deep.mkdir(parents=True)
    assert settings.locate_root(deep) == Notebook.locate(deep).root
    assert settings.locate_root(None, str(tmp_path / "repo")) == nb.root
    assert settings.locate_root(None, str(nb.root)) == nb.root
    assert settings.locate_root(tmp_path) is None


def test_the_client_s_string_paths_are_the_ones_path_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find_root` (os.path, the client's) names the notebook as `Notebook.locate` (pathlib) does:
    relative names, "." and ".." parts, trailing slashes, symlinks and a folder named .errnote."""
    from errnote.notebook import Notebook

    nb, _ = Notebook.init(tmp_path / "repo")
    (tmp_path / "repo" / "src").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "repo")
    (tmp_path / "bare").symlink_to(nb.root)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ERRNOTE_DIR", raising=False)
    overrides = ["repo", "repo/", "./repo/./", "repo/src/..", "link", "link/.errnote", "repo/.errnote/",
                 "bare", str(nb.root), "bare/", "./link/./.errnote", "repo/src/../.errnote"]  # fmt: skip
    for override in overrides:
        got = settings.find_root(None, override)
        assert got == str(Notebook.locate(None, override).root), override
        assert settings.locate_root(None, override) == Path(got), override
    for start in ("repo/src", "link/src", "link/src/", "repo/src/.."):
        assert settings.find_root(str(tmp_path / start)) == str(Notebook.locate(tmp_path / start).root), start
    assert settings.find_root(None, "nowhere") is None
    assert settings.find_root(str(tmp_path)) is None
    (tmp_path / "plain" / ".errnote").parent.mkdir()
    (tmp_path / "plain" / ".errnote").write_text("", encoding="utf-8")
    assert settings.find_root(str(tmp_path / "plain")) is None  # a file: the in-process call explains
    assert settings.socket_path(nb.root) == Path(settings.socket_name(str(nb.root)))
    assert settings.socket_path(nb.root) == nb.root / "cache" / "engine" / "sock"


def test_a_hook_s_client_work_loads_no_pathlib_socket_or_contextlib(tmp_path: Path) -> None:
    """Without `site` (so without an editable install's finder), the client's whole path, up to
    asking an engine that is not there, imports none of the modules it was made to avoid."""
    from errnote.notebook import Notebook

    nb, _ = Notebook.init(tmp_path / "repo")
    code = (
        "import sys\n"
        "from errnote.engine import client, settings\n"
        f"root = settings.find_root({str(tmp_path / 'repo')!r})\n"
        "assert root is not None and settings.read_settings(root).enabled\n"
        "settings.fingerprint()\n"
        "assert client.ask(root, {'kind': 'hook', 'autostart': False}) is None\n"
        "print(' '.join(m for m in ('pathlib', 'socket', 'contextlib', 'struct', 'selectors', 'typing')"
        " if m in sys.modules))\n"
    )
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == ""
    assert nb.root.is_dir()


def test_the_client_path_imports_only_the_standard_library() -> None:
    code = "import sys\nimport errnote.engine.client\nprint('\\n'.join(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    ours = {m for m in loaded if m.split(".")[0] == "errnote"}
    assert ours == {"errnote", "errnote.engine", "errnote.engine.client", "errnote.engine.protocol",
                    "errnote.engine.settings"}  # fmt: skip
    for heavy in ("typer", "rich", "click", "whoosh", "yaml", "git", "typing", "dataclasses", "subprocess"):
        assert heavy not in loaded, heavy
    stdlib = set(sys.stdlib_module_names)
    foreign = {m for m in loaded - ours if m.split(".")[0] not in stdlib}
    # The editable install's own finder and setuptools' distutils shim, loaded by `site` at start.
    assert all(m == "__main__" or m.startswith(("__editable__", "_distutils_hack")) for m in foreign), foreign


def test_commands_the_engine_never_answers_do_not_import_its_client() -> None:
    """`errnote --version`, `--help`, `add`, `list` ... pay nothing for the engine."""
    code = (
        "import sys\n"
        "sys.argv = ['errnote', '--version']\n"
        "from errnote.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('errnote.engine.client' in sys.modules, 'socket' in sys.modules)"
    )
    env = {**os.environ, "ERRNOTE_ENGINE": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.strip().splitlines()[-1] == "False False"


def test_the_code_stamp_sees_an_edit_in_place_and_a_new_file_but_no_bytecode_cache(tmp_path: Path) -> None:
    import shutil

    import errnote

    code = tmp_path / "errnote"
    shutil.copytree(Path(errnote.__file__).parent, code, ignore=shutil.ignore_patterns("__pycache__"))
    first = settings._stamp(str(code))
    cache = code / "search" / "__pycache__"
    cache.mkdir()
    (cache / "applies.cpython-311.pyc").write_bytes(b"bytecode")
    assert settings._stamp(str(code)) == first  # an interpreter caching bytecode changed nothing
    module = code / "search" / "applies.py"  # a module deep in the tree, edited where it is
    module.write_text(module.read_text(encoding="utf-8") + "\n# edited in place\n", encoding="utf-8")
    edited = settings._stamp(str(code))
    assert edited != first
    (code / "search" / "data" / "extra.txt").write_text("a new table\n", encoding="utf-8")
    assert settings._stamp(str(code)) not in (first, edited)
