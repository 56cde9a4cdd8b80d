"""Write completions/errnote.{bash,zsh,fish} from the CLI: each is what `errnote` prints when asked
for its completion source (`_ERRNOTE_COMPLETE=source_SHELL errnote`), made to load the way each
shell documents. The scripts ask the program at each TAB, so they complete every command, option
and value (`--format`, `--type`, `--status`, relations, the notebook's entry ids) the CLI knows.

    .venv/bin/python completions/generate.py            # rewrite the scripts
    .venv/bin/python completions/generate.py --check    # exit 1 when a committed script is stale
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHELLS = ("bash", "zsh", "fish")


def source(shell: str) -> str:
    """The completion source the CLI prints for `shell`."""
    env = {**os.environ, "_ERRNOTE_COMPLETE": f"source_{shell}"}
    done = subprocess.run(
        [sys.executable, "-m", "errnote"], env=env, capture_output=True, text=True, check=True, cwd=HERE
    )
    return done.stdout


def zsh_loadable(text: str) -> str:
    """typer's zsh source, made to load from `$fpath` as zsh documents it: `#compdef` on the very
    first line (typer puts a blank line first, and compinit then never reads the tag), one function
    named as the file (`_errnote`), called directly when zsh autoloads the file and registered with
    `compdef` when the file is sourced instead. The program's answer is quoted for `eval` (a title
    with two spaces stays as written)."""
    body = re.search(r"^(\w+)\(\) \{\n(.*?)^\}$", text, flags=re.M | re.S)
    if body is None:
        raise SystemExit("the CLI's zsh source has no completion function: has typer changed it?")
    name, inner = body.group(1), body.group(2)
    inner = re.sub(r"eval \$\((.*)\)$", r'eval "$(\1)"', inner.rstrip("\n"), flags=re.M)
    return (
        "#compdef errnote\n"
        "# zsh completion for errnote (completions/generate.py). Copy it to a folder on $fpath as\n"
        "# _errnote before compinit runs, or source it after compinit.\n"
        "\n"
        "_errnote() {\n"
        f"{inner}\n"
        "}\n"
        "\n"
        "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
        '  _errnote "$@"\n'
        "else\n"
        "  compdef _errnote errnote\n"
        "fi\n"
    ).replace(f"{name}()", "_errnote()")


def script(shell: str) -> str:
    """The committed script of `shell`, as the CLI generates it today."""
    text = source(shell)
    return zsh_loadable(text) if shell == "zsh" else text.lstrip("\n")


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for shell in SHELLS:
        path = HERE / f"errnote.{shell}"
        wanted = script(shell)
        if path.exists() and path.read_text(encoding="utf-8") == wanted:
            continue
        stale.append(path.name)
        if not check:
            path.write_text(wanted, encoding="utf-8")
    if check and stale:
        print(f"stale: {', '.join(stale)}; run: python completions/generate.py", file=sys.stderr)
        return 1
    if stale:
        print(f"wrote {', '.join(stale)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
