"""The programs a shell command runs (`cd x && FOO=1 cargo test | tee log`: cargo, tee), as the
`tool:` scopes see them: what a hook's command, `errnote run` and `inject --command` select by."""

from __future__ import annotations

import re


def program_names(command: str) -> list[str]:
    """The programs a shell command runs: `cd x && FOO=1 cargo test | tee log` gives cargo, tee.

    Quotes are respected (`git commit -m "fix; pytest later"` runs git alone). `cd` is left out (it
    says where, not what); wrappers (`sudo -u bob`, `env`, `time`, `timeout 30`, `nohup`) and
    runners (`npx`, `uv run`, `poetry run`, `pnpm exec`) are looked through; `python -m pytest`
    gives pytest and python.
    """
    found: list[str] = []
    for words in _simple_commands(command):
        for name in _programs_of(words):
            name = name.strip("'\"`").rsplit("/", 1)[-1]
            usable = name and name not in ("cd", "pushd", "popd") and re.match(r"^[\w.+-]+$", name)
            if usable and name not in found:
                found.append(name)
    return found


def _simple_commands(command: str) -> list[list[str]]:
    """The words of each simple command in a shell line (split at ; && || | & and brackets)."""
    import shlex

    # Redirections (`2>&1`, `&>log`, `>&2`) are not command separators: blank their `&` first.
    command = re.sub(r"\d*>&(\d+|-)|&>>?", " ", _one_line(command))
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: read it as plain words
        tokens = re.split(r"\s+|(?=[;&|()])|(?<=[;&|()])", command.replace('"', " ").replace("'", " "))
    commands: list[list[str]] = [[]]
    depth = 0
    patterns_from = -1  # in a `case`: where its next pattern (`docker|podman)`) begins
    for token in tokens:
        if not token:
            continue
        if set(token) <= set(";&|()"):
            if token == "(" and patterns_from == len(commands) - 1 and not commands[-1]:
                continue  # `(start)`: a pattern's optional opening bracket
            opened, closed = token.count("("), token.count(")")
            if closed > opened and depth == 0 and patterns_from >= 0:
                del commands[patterns_from:]  # the pattern's words, split at `|`: no command
                commands.append([])
            depth = max(0, depth + opened - closed)
            commands.append([])
            if ";;" in token and patterns_from >= 0:  # `;;` (a line end after it reads as `;`)
                patterns_from = len(commands) - 1
        else:
            commands[-1].append(token)
            if token == "in" and commands[-1][0] == "case":
                commands.append([])
                patterns_from = len(commands) - 1
            elif token == "esac":
                patterns_from = -1
    return [c for c in commands if c]


def _one_line(script: str) -> str:
    """A multi-line script as one line: line ends outside quotes become `;`; comments and the
    bodies of here-documents (`cat > f <<'EOF'` ... `EOF`: text, not commands) go."""
    script = script.replace("\r\n", "\n")
    out: list[str] = []
    pending: list[tuple[str, bool]] = []  # here-document delimiters of this line, `<<-` or not
    quote = ""
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if quote:
            if c == "\\" and quote == '"' and i + 1 < n:
                out.append(script[i : i + 2])
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c == "\\" and i + 1 < n:
            out.append(" " if script[i + 1] == "\n" else script[i : i + 2])  # a continued line is one
            i += 2
            continue
        elif c in "'\"":
            quote = c
        elif c == "<" and script.startswith("<<<", i):
            out.append("<<<")  # a here-string: one word of input, no body
            i += 3
            continue
        elif c == "<" and script.startswith("<<", i):
            heredoc = _HEREDOC.match(script, i)
            if heredoc and not heredoc.group("word").isdigit():  # `$((1<<20))` shifts a number
                pending.append((heredoc.group("word"), heredoc.group("dash") == "-"))
                out.append(" ")
                i = heredoc.end()
                continue
        elif c == "\n":
            c = ";"
            for word, dash in pending:  # skip each body, up to its delimiter line
                while i < n:
                    end = script.find("\n", i + 1)
                    line = script[i + 1 : n if end < 0 else end]
                    i = n if end < 0 else end
                    if (line.lstrip("\t") if dash else line) == word:
                        break
            pending = []
        elif c == "#" and (not out or out[-1][-1:] in " \t;&|()"):
            end = script.find("\n", i)
            i = n if end < 0 else end  # to the end of the line; its line end still separates
            continue
        out.append(c)
        i += 1
    return "".join(out)


#: `<<EOF`, `<<-EOF`, `<< 'EOF'`, `<<"EOF"`: a here-document and its delimiter.
_HEREDOC = re.compile(r"<<(?P<dash>-?)[ \t]*(?P<q>['\"]?)(?P<word>[A-Za-z0-9_.-]+)(?P=q)")


#: Shell words that open, continue or close a compound command (`if`, `for ... do`, `{ ... }`):
#: the program is the word after them, or none.
_KEYWORDS = frozenset({"if", "then", "elif", "else", "do", "while", "until", "!", "{"})
_NO_PROGRAM = frozenset({"fi", "done", "esac", "}", "for", "case", "select", "in", "function", ";;"})

#: Programs that run another program: their options (those that take a value listed) come first.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "nohup": frozenset(),
    "exec": frozenset({"-a"}),
    "command": frozenset(),
    "xargs": frozenset({"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a"}),
    "npx": frozenset({"-p", "--package"}),
    "bunx": frozenset(),
    "pnpx": frozenset(),
}
#: Package managers whose `run` / `exec` / `dlx` runs another program.
_RUNNERS = frozenset({"uv", "poetry", "pipx", "pdm", "hatch", "rye", "pnpm", "yarn", "bun", "npm", "conda"})
#: Their options that take a value (`uv run --with httpx pytest`).
_RUNNER_VALUED = frozenset(
    {"--with", "--with-requirements", "--python", "-p", "--from", "--directory", "--project", "--package"}
    | {"--env-file", "--group", "--extra", "--index", "-n", "--name", "-e", "--env", "--spec", "-C", "--cwd"}
)


def _programs_of(words: list[str]) -> list[str]:
    i = 0
    while i < len(words):
        word = words[i]
        if word in _NO_PROGRAM:
            return []  # `for d in a b`, `done`: a loop's words, not a program
        if word in _KEYWORDS or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            i += 1  # `then`, `!`, `FOO=1`: the program comes after
        elif word in _WRAPPERS:
            takes_value = _WRAPPERS[word]
            i += 1
            while i < len(words) and (words[i].startswith("-") or re.match(r"^[A-Za-z_]\w*=", words[i])):
                i += 2 if words[i] in takes_value else 1
            if word == "timeout" and i < len(words):
                i += 1  # the duration
        elif word in _RUNNERS and i + 1 < len(words) and words[i + 1] in ("run", "exec", "dlx", "x"):
            if word in ("npm", "yarn", "pnpm", "bun") and words[i + 1] == "run":
                return [word]  # `npm run test` runs a package script, not a program named test
            i += 2
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in _RUNNER_VALUED else 1
        else:
            break
    if i >= len(words):
        return []
    name = words[i].rsplit("/", 1)[-1]
    if re.match(r"^python[\d.]*$", name):  # python3.12 is python to a `tool:python` scope
        return [words[i + 2], "python"] if i + 2 < len(words) and words[i + 1] == "-m" else ["python"]
    return [words[i]]
