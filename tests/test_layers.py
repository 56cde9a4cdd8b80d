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


# --- the floors of the house (docs/architecture.md), top to bottom --------------------------------
# A module imports only from its own unit or from a lower floor; units side by side on one floor never
# import each other. Lazy imports (inside functions) and `TYPE_CHECKING` imports count too.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli",),
    ("engine",),
    ("integrations",),
    ("capture", "lifecycle", "team"),
    ("prompt",),
    ("notebook",),
    ("search",),
    ("semantic",),
    ("config",),
    ("storage",),
    ("redact",),
    ("model",),
    ("text", "fences"),
    ("errors",),
)


ALL_MODULES = frozenset(
    ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
    for p in PACKAGE.rglob("*.py")
)


def unit_of(module: str) -> str:
    """`errnote.search.index` -> `search`; `errnote.errors` -> `errors`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def floor_of(unit: str) -> int:
    for level, units in enumerate(FLOORS):
        if unit in units:
            return level
    raise AssertionError(f"errnote.{unit} is on no floor: add it to FLOORS and to docs/architecture.md")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def errnote_imports(path: Path) -> set[str]:
    """Every errnote module `path` imports, resolved to its full dotted name, lazy ones included."""
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "errnote")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if module.split(".")[0] != "errnote":
                continue
            if module == "errnote":  # `from errnote import search` names a unit
                found.update(f"errnote.{a.name}" for a in node.names if a.name != "__version__")
                continue
            # `from errnote.search import index` imports the module errnote.search.index (its package
            # runs first, as for any submodule); `from errnote.model import Entry`, the package itself
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if sub in ALL_MODULES else module)
    return found


def test_every_import_points_down_the_floors() -> None:
    wrong: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = module_name(path)
        if own == "errnote":
            continue  # the package root holds `__version__` only
        mine = unit_of(own)
        for target in sorted(errnote_imports(path)):
            theirs = unit_of(target)
            if not theirs or theirs == mine:
                continue
            if floor_of(theirs) <= floor_of(mine):
                wrong.append(f"{own} imports {target}: {theirs} is not on a floor below {mine}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle_between_modules() -> None:
    graph = {module_name(p): errnote_imports(p) for p in PACKAGE.rglob("*.py")}
    modules = set(graph)

    def targets(name: str) -> set[str]:
        # `from errnote.model import Entry` reaches the package `errnote.model`, whose `__init__` runs
        return {t for t in graph.get(name, set()) if t in modules and t != name}

    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        stack.append(name)
        for nxt in sorted(targets(name)):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[name] = 2

    for name in sorted(modules):
        if name not in state:
            visit(name)


def test_modules_stay_small() -> None:
    """One concept per module: under ~400 lines of code (blank lines, comments and docstrings aside)."""
    big = []
    for path in PACKAGE.rglob("*.py"):
        code = 0
        in_doc = False
        for line in path.read_text(encoding="utf-8").splitlines():
            s = line.strip()
            if s.startswith(('"""', "'''")):
                if not (len(s) > 3 and s.endswith(s[:3])):
                    in_doc = not in_doc
                continue
            if in_doc or not s or s.startswith("#"):
                continue
            code += 1
        if code > 420:
            big.append(f"{path.relative_to(PACKAGE)}: {code} lines of code")
    assert not big, "\n".join(big)


def test_no_module_imports_another_folders_private_names() -> None:
    """A floor's public functions are its interface: `_helpers` stay inside their own folder."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").startswith("errnote.")
            ):
                if unit_of(node.module or "") == unit_of(own):
                    continue
                private = [
                    a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")
                ]
                wrong.extend(f"{own} imports {node.module}.{name}" for name in private)
    assert not wrong, "\n".join(wrong)
