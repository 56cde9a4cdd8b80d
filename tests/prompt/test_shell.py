"""`errnote.prompt.shell`: the programs a shell command runs."""

from __future__ import annotations

import pytest

from errnote.prompt.shell import program_names


def test_program_names() -> None:
    assert program_names("cd web && FOO=1 npx eslint . | tee log; /usr/bin/git status") == [
        "eslint",
        "tee",
        "git",
    ]
    assert program_names("") == []
    assert program_names("(cargo build) || make") == ["cargo", "make"]


@pytest.mark.parametrize(
    ("command", "programs"),
    [
        ("uv run pytest -x", ["pytest"]),
        ("poetry run pytest", ["pytest"]),
        ("python -m pytest tests", ["pytest", "python"]),
        ("python3.12 script.py", ["python"]),
        ('git commit -m "fix; pytest later"', ["git"]),  # quotes are one word
        # Scripts as agents write them: several lines, compound commands, comments.
        ("cd web\nnpm ci", ["npm"]),
        ("npm install\ncargo build", ["npm", "cargo"]),
        ("if [ -d web ]; then npm ci; fi", ["npm"]),
        ("for d in a b; do npm ci --prefix $d; done", ["npm"]),
        ("while true; do cargo test; done", ["true", "cargo"]),
        ("{ cargo build; }", ["cargo"]),
        ("true && ! cargo build", ["true", "cargo"]),
        ("echo a # then cargo build", ["echo"]),  # a comment runs nothing
        ("echo a#b && cargo test", ["echo", "cargo"]),  # `#` inside a word is no comment
        ("# build it\nmake \\\n  test", ["make"]),
        ('git commit -m "fix #12\nsecond line; pytest"', ["git"]),  # a line end inside quotes
        ("cat > Makefile <<'EOF'\ntest:\n\tpytest -x\nEOF\nmake test", ["cat", "make"]),  # a file's text
        ("cat <<-END\n\tIt's fine\n\tEND\ncargo build", ["cat", "cargo"]),
        ('case "$1" in\n start) npm start ;;\n test) pytest ;;\nesac', ["npm", "pytest"]),
        (
            "case $x in\n docker|podman)\n  make\n  ;;\n *) cargo test ;;\nesac\nruff check",
            ["make", "cargo", "ruff"],
        ),
        ('case "$1" in (start) pytest ;; (stop) ruff ;; esac', ["pytest", "ruff"]),
        ("tr a-z A-Z <<< hello\npytest", ["tr", "pytest"]),  # a here-string has no body
        ("echo $((1<<20))\npytest", ["echo", "pytest"]),  # a shift, not a here-document
        ("docker run \\\r\n  --rm -it ubuntu", ["docker"]),  # a continued line, CRLF
        ("sudo -u bob npm ci", ["npm"]),
        ("timeout 30 cargo test && env -u X FOO=1 make", ["cargo", "make"]),
        ("pnpm exec vitest run", ["vitest"]),
        ("npm run test", ["npm"]),  # a package script, not a program named test
        ('echo "unbalanced', ["echo"]),
        ("cargo test 2>&1 | tee log", ["cargo", "tee"]),  # a redirection is not a separator
        ("make &> build.log", ["make"]),
        ("uv run --with httpx --python 3.12 pytest -q", ["pytest"]),
    ],
)
def test_program_names_look_through_runners_and_quotes(command: str, programs: list[str]) -> None:
    assert program_names(command) == programs
