"""The house rules on imports, checked by reading the source."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "errnote"
UI_MODULES = {"typer", "rich", "click"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module)
        elif isinstance(node, ast.ImportFrom):  # relative: `from .cli import app`, `from . import cli`
            names = [node.module] if node.module else [alias.name for alias in node.names]
            roots.update(f"errnote.{name}" for name in names)
    return roots


def test_the_core_never_imports_the_cli_or_ui_libraries() -> None:
    # `__main__` is an entry point like the console script: it may start the CLI.
    core = [
        p
        for p in PACKAGE.rglob("*.py")
        if "cli" not in p.relative_to(PACKAGE).parts and p.name != "__main__.py"
    ]
    assert core, "no core modules found"
    for path in core:
        for name in imported_roots(path):
            root = name.split(".")[0]
            assert root not in UI_MODULES, f"{path.name} imports {name}: the core must not use the UI layer"
            assert not name.startswith("errnote.cli"), f"{path.name} imports {name}: arrows point down only"


def test_cli_modules_do_not_import_the_app_back() -> None:
    """`cli.app` assembles the commands; the modules it assembles never import it (no cycle). Only
    the entry point (`cli/__init__.py`, `main`) starts it."""
    for path in (PACKAGE / "cli").glob("*.py"):
        if path.name not in ("app.py", "__init__.py"):
            assert "errnote.cli.app" not in imported_roots(path), f"{path.name} imports errnote.cli.app"


def test_the_core_loads_no_ui_library_even_indirectly() -> None:
    """What hooks and `inject` import at run time, dependencies included, holds no typer or rich."""
    code = (
        "import sys, errnote.prompt.inject, errnote.integrations.claude_hooks, errnote.search.index\n"
        "import errnote.storage.merge\n"
        "print(sorted(m for m in ('typer', 'rich', 'click') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_no_grab_bag_modules() -> None:
    names = {p.stem for p in PACKAGE.rglob("*.py")}
    assert not names & {"utils", "helpers", "manager", "misc", "common"}


def test_light_commands_do_not_import_whoosh_or_git(tmp_path: Path) -> None:
    """`errnote --help`, `errnote list` and `errnote inject` must not pay for the index or GitPython;
    `--help` and `inject` not for rich's tables either (`list` draws one)."""
    from errnote.notebook import Notebook

    nb, _ = Notebook.init(tmp_path)
    nb.add("lesson", "Pin the toolchain", scope=["repo"])
    where = ["--notebook", str(tmp_path)]
    for args, heavy in (
        (["--help"], ("whoosh", "git", "rich.table")),
        ([*where, "list"], ("whoosh", "git")),
        ([*where, "inject"], ("whoosh", "git", "rich.table")),
    ):
        code = (
            "import sys\n"
            "from typer.testing import CliRunner\n"
            "from errnote.cli.app import app\n"
            f"result = CliRunner().invoke(app, {args!r})\n"
            "assert result.exit_code == 0, result.output\n"
            f"print(','.join(m for m in {heavy!r} if m in sys.modules))\n"
        )
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert run.stdout.strip() == "", args
