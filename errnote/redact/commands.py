"""Secrets found on command lines: `--password X`, `-u user:X`, `-p X` where the command logs in,
`redis-cli -a X`, `echo X | ... --password-stdin`, netrc lines and Go DSNs."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from errnote.redact import needs
from errnote.redact.values import name_strength, plausible, random_like, value_group

# `--password X`, `--api-key=X`, `-storepass X`, and a flag and its value as two items of a command
# list (`["redis-server", "--requirepass", "X"]`, `subprocess.run([..., "--password", "X"])`).
_FLAG_RE = re.compile(
    r"(?<![\w-])--?(?P<name>[A-Za-z][A-Za-z0-9-]*)"
    r"(?:[ \t]+|=|(?P<item>\"[ \t]*,[ \t]*(?=\")|'[ \t]*,[ \t]*(?=')))"
    r"(?:\"(?P<dq>[^\"\n]+)\"|'(?P<sq>[^'\n]+)'|(?P<bare>[^\s\"'-][^\s\"']*))"
)


# `-u user:password` / `--user user:password` (curl and friends): the flag, then read by
# `_user_flag_spans`. A pattern for the whole would read a line of `-u=x:-u=x:...` to its end from
# every `-u` (quadratic).
_USER_FLAG_RE = re.compile(r"(?<![\w-])(?:-u|--user)(?:[ \t]+|=)([\"']?)")


_USER_END_RE = re.compile(r"[\s:\"']")


_PASSWORD_END_RE = re.compile(r"[\s\"']")


# A quoted password runs to its closing quote on the same line (`-u 'admin:pass with space'`).
_QUOTED_END_RE = {"'": re.compile(r"['\n]"), '"': re.compile(r'["\n]')}


# `-p X` / `-pX`: a password only where the command takes one (mysql, docker login, twine...);
# elsewhere `-p` is a port or a parent flag, so _short_p_ok() checks the command line first.
# A bare value ends at a shell operator (`-pS3cret; mkdir -p out`: `;` is not the password's, and
# masking it would join the next command to this one); a quoted one is taken whole.
_SHORT_P_RE = re.compile(
    r"(?<![\w-])-p(?:[ \t]+)?(?:(?:'(?P<q>[^'\n]+)'|\"(?P<q2>[^\"\n]+)\")(?=[\s\"';|&<>]|$)"
    r"|(?P<s>[^\s\"'\-;|&<>][^\s\"';|&<>]*)(?=[\s\"';|&<>]|$))"
)


# Where a command that takes a password with `-p` is named, found once in the whole text; a `-p`
# counts when one of these lies between the start of its own command and itself.
_PASSWORD_COMMAND_RE = re.compile(
    # `sudo -u deploy`, `docker exec -u root`, `runuser -u app`: a user to run as, not a login.
    r"(?:^|(?<=[;|&])|(?<!\bsudo)(?<!\bexec)(?<!\brun)(?<!\brunuser)\s)(?:-u|-U|--user(?:name)?)(?:[ \t=]|$)"
    r"|\b(?:mysql\w*|mariadb\w*|sshpass|login)\b",
    re.MULTILINE,
)


# `.netrc` / `machine h login u password p`: a space, not `=` or `:`, separates the value.
_NETRC_RE = re.compile(r"\blogin[ \t]+\S+\s+password[ \t]+(?P<s>[^\s\"']+)")


# Go MySQL DSN `user:pass@tcp(host:3306)/db` has no scheme, so the URL rule misses it.
_GO_DSN_RE = re.compile(r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]+:(?P<s>[^\s@/:'\"]+)@(?:tcp|unix|udp)\(")


# `redis-cli ... -a X` and `echo X | docker login --password-stdin`: found line by line (a pattern
# reaching from each `redis-cli` or `echo` to the end of its line is quadratic on a long line).
_REDIS_CLI_RE = re.compile(r"\bredis-cli\b")


_REDIS_A_RE = re.compile(r"(?<![\w-])-a[ \t]+([\"']?)(?P<s>[^\s\"'-][^\s\"']*)\1")


# The OpenLDAP tools' simple-bind password: `ldapsearch -D cn=admin,... -w X` (`-W` asks for it).
_LDAP_RE = re.compile(r"\bldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn|exop|url)\b")


_LDAP_W_RE = re.compile(r"(?<![\w-])-w[ \t]+([\"']?)(?P<s>[^\s\"'-][^\s\"']*)\1")


# `ldappasswd -a OLD -s NEW`: the old and the new password.
_LDAPPASSWD_RE = re.compile(r"\bldappasswd\b")


_LDAPPASSWD_FLAG_RE = re.compile(r"(?<![\w-])-[as][ \t]+([\"']?)(?P<s>[^\s\"'-][^\s\"']*)\1")


# `redis-cli ... AUTH [USER] X`: Redis's own command, given on the command line.
_REDIS_AUTH_RE = re.compile(
    r"(?<![\w-])(?i:auth)[ \t]+(?:[^\s\"'-]\S*[ \t]+)?([\"']?)(?P<s>[^\s\"'-][^\s\"']*)\1"
)


# SQL Server's tools (`sqlcmd -S host -U sa -P X`, `bcp ... -P X`): `-P` is the password there
# (in mysql it is the port).
_SQLCMD_RE = re.compile(r"(?i)\b(?:sqlcmd|bcp|osql)(?:\.exe)?\b")


_SQLCMD_P_RE = re.compile(r"(?<![\w-])-P[ \t]*([\"']?)(?P<s>[^\s\"'-][^\s\"']*)\1")


# `cargo login [--registry NAME] TOKEN` (`cargo +nightly login`, `cargo.exe login`): the registry
# token is the command's word, a machine-made one (`_machine_made`): prose such as "cargo login
# first" and a placeholder name hold none.
_CARGO_LOGIN_RE = re.compile(r"\bcargo(?:\.exe)?(?:[ \t]+\+[\w.-]+)?[ \t]+login\b")


_CARGO_TOKEN_RE = re.compile(
    r"(?<=login)(?:[ \t]+(?:--registry(?:[ \t]+|=)[^\s;|&<>]+|--quiet|-q|--))*"
    r"[ \t]+([\"']?)(?P<s>[A-Za-z0-9]{32,})\1(?![A-Za-z0-9_])"
)


# `nuget push PKG -k KEY` (`dotnet nuget push`, `nuget.exe delete ... -ApiKey`): the feed's API key,
# in that command only (`pytest tests/nuget -k name` is another program's `-k`).
_NUGET_RE = re.compile(r"(?i)\b(?:dotnet[ \t]+)?nuget(?:\.exe)?[ \t]+(?:push|delete)\b")


_NUGET_KEY_RE = re.compile(
    r"(?<![\w-])(?:-k|-ApiKey)[ \t]+([\"']?)(?P<s>[A-Za-z0-9]{32,})\1(?![A-Za-z0-9_-])"
)


# `net use [X:] [\\host\share] [PASSWORD] [/user:NAME]` (Windows): the password is the word that is
# neither a drive, a share, a switch nor `*` (which prompts for it); only where a command starts (a
# line, a prompt, a pipe, a code span), since "run net use to see the drives" is prose.
_NET_USE_RE = re.compile(r"(?im)(?:^|[>$&|;(`])[ \t]*net(?:\.exe)?[ \t]+use\b")


_NET_USE_PASSWORD_RE = re.compile(
    r"(?<=[ \t])([\"']?)(?P<s>(?![A-Za-z]:[\"']?(?:[\s`]|$))[^\s\"'`/\\*][^\s\"'`]*)\1(?=[\s`]|$)"
)


#: Each command that takes a password by a flag of its own, and that flag: read in that command.
#: The last two take a token, never a password a person chose: a machine-made value only.
_LINE_FLAGS = (
    (_REDIS_CLI_RE, ("redis-cli",), _REDIS_A_RE, False),
    (_REDIS_CLI_RE, ("redis-cli",), _REDIS_AUTH_RE, False),
    (_SQLCMD_RE, ("sqlcmd", "SQLCMD", "bcp", "BCP", "osql", "OSQL"), _SQLCMD_P_RE, False),
    (_NET_USE_RE, ("net", "neT", "nEt", "nET", "Net", "NeT", "NEt", "NET"), _NET_USE_PASSWORD_RE, False),
    (_LDAP_RE, ("ldap",), _LDAP_W_RE, False),
    (_LDAPPASSWD_RE, ("ldappasswd",), _LDAPPASSWD_FLAG_RE, False),
    (_CARGO_LOGIN_RE, ("cargo",), _CARGO_TOKEN_RE, True),
    (_NUGET_RE, ("nuget", "NuGet", "NUGET"), _NUGET_KEY_RE, True),
)


def _machine_made(value: str) -> bool:
    """A registry's token: letters and digits mixed, many different ones (not a placeholder such
    as `cioXXXX...` or `oy2xxxx...`, not a name made of words)."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and len(set(value)) >= 12


# Where a command's words end on its line: a pipe, a `;`, a `&`, a redirection.
_COMMAND_END_RE = re.compile(r"[|;&<>\n]")


# `htpasswd -b[c] FILE USER PASSWORD`, `htpasswd -nb USER PASSWORD`: with `-b` the password is the
# command's last word (`-C COST` takes a word of its own).
_HTPASSWD_RE = re.compile(r"\bhtpasswd\b")


_ARG_RE = re.compile(r"'(?P<sq>[^'\n]*)'|\"(?P<dq>[^\"\n]*)\"|(?P<bare>[^\s;|&<>]+)")


_STDIN_ECHO_RE = re.compile(r"\becho[ \t]+(?:-n[ \t]+)?([\"']?)(?P<s>[^\s\"'|]+)\1[ \t]*\|")


_PORTS_RE = re.compile(r"^[\d.:]+(?:/\w+)?$")


def _user_flag_spans(text: str) -> Iterator[tuple[int, int]]:
    """The password of `-u user:password` (optionally quoted, then a space or the end): the user
    name runs to a `:`, the password to a space or quote (when quoted, to its closing quote on the
    line). Each end is found once for a run of text: the next `-u` inside the same run shares it
    (linear)."""
    ends: dict[re.Pattern[str], tuple[int, int]] = {}  # pattern -> (searched from, found at)

    def end_of(pattern: re.Pattern[str], pos: int) -> int:
        known = ends.get(pattern)
        if known is not None and known[0] <= pos <= known[1]:
            return known[1]  # no stop character between where the last search began and its stop
        found = pattern.search(text, pos)
        stop = found.start() if found else len(text)
        ends[pattern] = (pos, stop)
        return stop

    for m in _USER_FLAG_RE.finditer(text):
        quote = m.group(1)
        colon = end_of(_USER_END_RE, m.end())
        if colon >= len(text) or text[colon] != ":":
            continue
        start = colon + 1
        end = end_of(_QUOTED_END_RE[quote] if quote else _PASSWORD_END_RE, start)
        after = end + 1 if quote and end < len(text) and text[end] == quote else end
        if end == start or (quote and after == end):
            continue
        if after < len(text) and not text[after].isspace():
            continue
        yield start, end


def flag_spans(text: str) -> Iterator[tuple[int, int]]:
    """Command-line options: `--password X`, `-u user:X`, `-p X`, `redis-cli -a X`, `echo X | login`."""
    # A flag's value counts only under a name that could label a secret (`values.name_strength`).
    flags = needs.folds(text, needs.LABEL_WORDS) and needs.holds(text, ("-",))
    for m in _FLAG_RE.finditer(text) if flags else ():
        strength = name_strength(m.group("name"))
        if not strength:
            continue
        group = value_group(m)
        value = m.group(group)
        if group == "bare" and re.match(r"\w+=.", value):  # `--secret id=npmrc,src=...`: a spec
            continue
        if not plausible(value, bare=group == "bare", spaced=True):
            continue
        if m.group("item") and not random_like(value):
            continue  # list items: another flag, a file, a reference (`["--private-key", "deploy.pem"]`)
        if strength == 2 or random_like(value):
            yield m.span(group)
    for start, end in (
        _user_flag_spans(text) if needs.holds(text, ("-u",)) and needs.holds(text, (":",)) else ()
    ):
        value = text[start:end]
        if not value.isdigit() and plausible(value, bare=False, spaced=False):  # `-u 1000:1000` is uid:gid
            yield start, end
    if needs.holds(text, ("-p",)):
        yield from _short_p_spans(text)
    for m in _line_scoped(text):
        if plausible(m.group("s"), bare=True, spaced=True):
            yield m.span("s")
    if needs.holds(text, ("htpasswd",)):
        yield from _htpasswd_spans(text)
    for regex, present in (
        (_NETRC_RE, needs.holds(text, ("login",)) and needs.holds(text, ("password",))),
        (_GO_DSN_RE, needs.holds(text, ("@tcp(", "@unix(", "@udp("))),
    ):
        for m in regex.finditer(text) if present else ():
            if plausible(m.group("s"), bare=True, spaced=True):
                yield m.span("s")


def _line_scoped(text: str) -> Iterator[re.Match[str]]:
    """`-a X` after `redis-cli` (`-w X` after an LDAP tool) in that command; `echo X |` before
    `--password-stdin` on its line."""
    for command, need, flag, token in _LINE_FLAGS:
        if not needs.holds(text, need):
            continue
        at = 0
        while (cli := command.search(text, at)) is not None:
            stop = _COMMAND_END_RE.search(text, cli.end())
            end = len(text) if stop is None else stop.start()
            for m in flag.finditer(text, cli.end(), end):
                if not token or _machine_made(m.group("s")):
                    yield m
            at = max(end, cli.end())  # each stretch of text read once
    start = 0
    while (stdin := text.find("--password-stdin", start)) >= 0:
        line_start = text.rfind("\n", 0, stdin) + 1
        line_end = text.find("\n", stdin)
        line_end = len(text) if line_end < 0 else line_end
        last = text.rfind("--password-stdin", stdin, line_end)  # each line once
        yield from _STDIN_ECHO_RE.finditer(text, max(line_start, start), last)
        start = line_end


def _htpasswd_spans(text: str) -> Iterator[tuple[int, int]]:
    """The password of `htpasswd -b FILE USER PASSWORD` (`-n`: no file): its last word."""
    at = 0
    while (m := _HTPASSWD_RE.search(text, at)) is not None:
        stop = _COMMAND_END_RE.search(text, m.end())
        end = len(text) if stop is None else stop.start()
        at = max(end, m.end())
        flags, takes_value = "", False
        args: list[re.Match[str]] = []
        for word in _ARG_RE.finditer(text, m.end(), end):
            if takes_value:
                takes_value = False  # the cost of `-C 10`
            elif word.group("bare") is not None and word.group().startswith("-") and not args:
                flags += word.group()[1:]
                takes_value = word.group().endswith("C")
            else:
                args.append(word)
        if "b" not in flags or len(args) != (2 if "n" in flags else 3):
            continue
        group = value_group(args[-1])
        if plausible(args[-1].group(group), bare=group == "bare", spaced=False):
            yield args[-1].span(group)


def _short_p_spans(text: str) -> Iterator[tuple[int, int]]:
    """`-p X` where this command of the line takes a password: `npm login && mkdir -p dist` is not
    a login. One pass over each line, however long, and however many `-p` it holds."""
    commands: list[re.Match[str]] | None = None  # found only once a `-p` is
    starts: list[int] = []
    scan = _ShellScan(text, 0)
    for m in _SHORT_P_RE.finditer(text):
        group = next(g for g in ("s", "q", "q2") if m.group(g) is not None)
        value = m.group(group)
        if _PORTS_RE.match(value) or not plausible(value, bare=True, spaced=True):
            continue
        if commands is None:
            commands = list(_PASSWORD_COMMAND_RE.finditer(text))
            starts = [c.start() for c in commands]
        if m.start() > scan.line_end:
            scan = _ShellScan(text, m.start())
        command_start = scan.command_start(m.start())
        # `- 1`: a `-u` opening a line is found with the line break before it (`\s-u`).
        k = bisect.bisect_left(starts, command_start - 1)
        if k < len(commands) and commands[k].end() <= m.start():
            yield m.span(group)


class _ShellScan:
    """One line of text read as shell, left to right: where the command holding an offset starts."""

    def __init__(self, text: str, at: int) -> None:
        self.text = text
        self.i = self.quoted = self.any = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        self.line_end = len(text) if end < 0 else end
        self.quote = ""

    def command_start(self, stop: int) -> int:
        """After the last `;`, `|` or `&` before `stop` outside quotes (not the `&` of a redirection
        such as `2>&1`); a quote left open (`can't`) is read as no quote at all. `stop` only grows."""
        text, i = self.text, self.i
        while i < stop:
            c = text[i]
            redirection = text[i - 1 : i] in (">", "<") or text[i + 1 : i + 2] == ">"
            separator = c in ";|" or (c == "&" and not redirection)
            if separator:
                self.any = i + 1
            if self.quote:
                self.quote = "" if c == self.quote else self.quote
            elif c in "'\"":
                self.quote = c
            elif separator:
                self.quoted = i + 1
            i += 1
        self.i = i
        return self.any if self.quote else self.quoted
