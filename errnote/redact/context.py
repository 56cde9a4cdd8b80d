"""Secrets found by what labels them: the `user:password@` part of a URL, webhook paths, `Bearer`
and `Authorization:` headers, session cookies, `password=` and other key-value labels, and a
sentence naming one (`the password is ...`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from errnote.redact import needs
from errnote.redact.values import (
    CODE_REF_RE,
    HEX_RE,
    MASKED_RE,
    env_hex_key,
    line_before,
    name_strength,
    plausible,
    random_like,
    token_like,
    value_group,
)

# --- secrets by context -----------------------------------------------------------------------------
# `scheme://user:password@host`: only the password. `[^...@/]` keeps the match inside the authority.
# A dash may come before the scheme (`${DATABASE_URL:-postgres://...}`, a flag's `-postgres://`).
_URL_PASSWORD_RE = re.compile(
    r"(?<![A-Za-z0-9+.])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#'\"<>]*:(?P<s>[^\s@/?#'\"<>]+)@"
)


# `https://TOKEN@host`: a bare token used as the user name.
_URL_TOKEN_USER_RE = re.compile(r"(?<![A-Za-z0-9+.])[A-Za-z][A-Za-z0-9+.-]*://(?P<s>[A-Za-z0-9_-]{20,})@")


# An Azure shared access signature: the `sig` query parameter is the credential.
_SAS_SIGNATURE_RE = re.compile(r"[?&]sig=(?P<s>[A-Za-z0-9%+/=_-]{16,})")


# Webhook URLs carry their credential as the last path segment; the ids before it are not secret.
_VENDOR_WEBHOOK_RE = re.compile(
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?:[A-Za-z0-9]+/)+(?P<s>[A-Za-z0-9]{16,})"
    r"|discord(?:app)?\.com/api/webhooks/\d+/(?P<s2>[A-Za-z0-9_-]{40,})"
    # Microsoft Teams: `.../webhookb2/<group>@<tenant>/IncomingWebhook/<token>/<owner>`
    r"|/IncomingWebhook/(?P<s3>[0-9a-fA-F]{32})(?![0-9a-fA-F])"
)


# Any other URL with a `hooks/` (or `webhook/`) segment: its path is read segment by segment
# (`_webhook_spans`); a pattern would try a URL made of many `hooks/` at every way to split it.
_HTTP_URL_RE = re.compile(r"https?://[^\s/'\"]+/(?P<path>[^\s'\"?#]*)")


_HOOK_SEGMENTS = frozenset({"hooks", "webhook", "webhooks"})


_TRAILING = ")]>},.;:!`|&*_"


_TOKEN_SEGMENT_RE = re.compile(r"[A-Za-z0-9_-]{20,}")


# Where a route name splits into words: `-`, `_`, a camel-case hump, letters against digits.
_ROUTE_PARTS_RE = re.compile(r"[-_]|(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")


_TOKEN_CHARS = r"A-Za-z0-9._~+/-"


# `Bearer <token>` and `Basic <base64 user:pass>` anywhere (headers, logs, Go/py reprs of headers).
_BEARER_RE = re.compile(
    rf"(?<![A-Za-z0-9_-])(?:[Bb]earer|BEARER)[ \t]+(?P<s>[{_TOKEN_CHARS}]+=*)(?![{_TOKEN_CHARS}=])"
)


_BASIC_RE = re.compile(
    r"(?<![A-Za-z0-9_-])(?:[Bb]asic|BASIC)[ \t]+(?P<s>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"
)


# `Authorization: <scheme> <value>` or a raw `Authorization: <value>`, also as a header name and its
# value given as two strings (`.header("Authorization", "SSWS ...")`). The value must end the header
# (quote, bracket, line end), which rules out multi-part schemes such as `AWS4-HMAC-SHA256 Credential=`.
_AUTH_HEADER_RE = re.compile(
    r"(?i:(?:proxy-)?authorization)"
    r"(?:(?:\\?[\"'])?[ \t]*[:=][ \t]*(?:\\?[\"'])?|(?P<pair>\\?[\"'][ \t]*,[ \t]*\\?[\"']))\[?"
    r"(?:(?P<scheme>(?i:token|bearer|basic|apikey|api-key|key|sso-key|ssws|oauth|geniekey|splunk))[ \t]+)?"
    rf"(?P<s>[{_TOKEN_CHARS}]+=*)(?=\\?[\"'\],;]|\\r|\\n|[ \t]*(?:\r?\n|$))"
)


# `name<sep>value` where the name ends in a secret-ish word. The scan anchors on the word itself
# (cheap for the regex engine), then walks back to recover the whole name, and matches the value
# from the separator on. Anchoring on the word also means a rejected candidate before it
# (`--from-literal=api-token=...`) can never swallow it.
_KV_WORD_RE = re.compile(
    r"(?i:pass(?:word|wd|phrase)?|pwd|pw|secret|token|key(?:_?base)?|auth|psk)"
    r"(?=(?:\]|\\?[\"']|%22)?[ \t]*(?:=>|:=|=|:|：|%3[DdAa]))"
)


_KV_VALUE_RE = re.compile(
    r"(?:\]|\\?[\"']|%22)?[ \t]*(?P<sep>=>|:=|=|:|：|%3[DdAa])[ \t]*"
    # `\[` only for Go's `map[X-Api-Key:[value]]` rendering of headers; `%22...%22`: a quoted value
    # URL-encoded (a `%22` inside a bare value is the value's own).
    r"(?:\[(?=[^\]\s]+\]))?(?:\\?\"(?P<dq>[^\"\n]+?)\\?\"|'(?P<sq>[^'\n]+)'"
    r"|%22(?P<pq>(?:(?!%22)[^\s\"'`]){1,4096})%22|(?P<bare>[^\s\"'`]{1,4096}))"
)


# A bare value is the whole word after the separator, whatever its punctuation (`Xk9;mP2$vL7q`,
# `Tr0ub4dor&3`), except what plainly is not the value's: an escape of the text around it (`\n` in a
# log line), a shell `&&` / `||`, a closing tag, and the next assignment of a list (`&user=`,
# `,host:`). `_bare_end` cuts it there, then drops the punctuation of the prose around it.
_BARE_CUT_RE = re.compile(r"\\[nrt\"'\\]|&&|\|\||</|%26|[,;&|](?=[A-Za-z_][\w.-]*[ \t]*[=:])")


_BARE_TRAILING = ",;:."


_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}


# What a tool prints in place of a value: Terraform's `(sensitive value)`, `(known after apply)`.
_PAREN_WORDS_RE = re.compile(r"\((?:sensitive(?: value)?|known after apply|hidden|redacted|masked)\)")


# A name and its value as two fields: a Kubernetes or ECS `env` item (`- name: DB_PASSWORD` then
# `value: "..."` on the next line, or `{"name": "DB_PASSWORD", "value": "..."}`).
_NAME_VALUE_RE = re.compile(
    r"(?<![\w-])[\"']?name[\"']?[ \t]*[:=][ \t]*[\"']?(?P<name>[A-Za-z_][\w.-]{0,80})[\"']?[ \t]*"
    r"(?:,[ \t]*|\r?\n[ \t]*(?:-[ \t]+)?)[\"']?value[\"']?[ \t]*[:=][ \t]*"
    r"(?:\"(?P<dq>[^\"\n]+)\"|'(?P<sq>[^'\n]+)'|(?P<bare>[^\s\"',}]+))"
)


# A Terraform variable's default: the name on the block, the value inside it
# (`variable "db_password" { type = string  default = "..." }`).
_TF_VARIABLE_RE = re.compile(
    r"\bvariable[ \t]+\"(?P<name>[\w-]{1,80})\"[ \t]*\{[^{}]{0,300}?\bdefault[ \t]*=[ \t]*\"(?P<s>[^\"\n]+)\""
)


# `getpass()`, `os.environ[`, `ENC[...]`: a call or a structure, not a secret.
_CALL_RE = re.compile(r"[A-Za-z_][\w.]*[(\[{]")


# The default of a shell expansion, `${NAME:-value}` or `${NAME:=value}` (`:?` gives a message).
_EXPANSION_DEFAULT_RE = re.compile(r":?[-=](?P<value>[^\s}\"'`]+)\}")


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


# `<password>X</password>` (Maven settings.xml, .NET config) and `<add key="ApiKey" value="X"/>`.
_XML_TAG_RE = re.compile(r"<(?P<name>[A-Za-z_][\w:.-]{0,80})>(?P<s>[^<>\n]+)</(?P=name)>")


# An Apple property list: `<key>AlgoliaAdminAPIKey</key>` then `<string>...</string>`.
_PLIST_RE = re.compile(r"<key>(?P<name>[A-Za-z_][\w.-]{0,80})</key>\s{0,200}<string>(?P<s>[^<>\n]+)</string>")


_KEY_VALUE_ATTR_RE = re.compile(r"\bkey=([\"'])(?P<name>[^\"'\n]{1,80})\1\s+value=([\"'])(?P<s>[^\"'\n]+)\3")


# Session cookies: `Cookie:` / `Set-Cookie:` headers, then each `name=value` pair on that line.
_COOKIE_LINE_RE = re.compile(r"(?i:\b(?:set-)?cookie)[\"']?[ \t]*:[^\n]*")


_COOKIE_PAIR_RE = re.compile(r"(?P<name>[A-Za-z0-9_.-]+)=(?P<s>[^\s;,\"']+)")


_COOKIE_NAME_RE = re.compile(r"(?i)sess|sid|token|auth|remember|jwt")


# A session id by its well-known names, wherever it appears: `curl -b 'JSESSIONID=...'`, a
# `;jsessionid=` path parameter, `session_id=...` in a log line.
_SESSION_RE = re.compile(
    r"(?i)(?<![A-Za-z0-9_.])(?:jsessionid|phpsessid|asp\.net_sessionid|sessionid|session_id|session-id"
    r"|sessid|connect\.sid|laravel_session)[ \t]*=[ \t]*[\"']?(?P<s>[A-Za-z0-9%._~+/=-]{16,})"
)


_URL_AUTHORITY_TAIL_RE = re.compile(r"://[^\s/@?#;]*$")  # still inside `user:password@host`


# What may follow a value that ends its line: blanks, a comment, the line end (real or escaped).
_LINE_END_RE = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\r?\n|\\[rn]|$)")

# A line of a config file that sets one value by a name and blanks, as redis.conf, sshd_config or
# a Procfile-like `.env` do: `requirepass X`, `  masterauth "X"` (a comment may end the line).
_DIRECTIVE_RE = re.compile(
    r"(?m)^[ \t]*(?P<name>[A-Za-z_][\w.-]{2,79})[ \t]+(?P<q>[\"']?)(?P<s>[^\s\"'`#;]{4,512})(?P=q)"
    r"[ \t]*(?:#[^\n]*)?\r?$"
)


_ARN_TAIL_RE = re.compile(r"\barn:[\w-]+:[^\s,\"'=&;{}]*$")  # within the ARN, not past `,` or `"`


def url_spans(text: str) -> Iterator[tuple[int, int]]:
    """Passwords and tokens in URL userinfo, and webhook token segments."""
    url = needs.holds(text, ("://",))
    if url and needs.holds(text, ("@",)):
        for m in _URL_PASSWORD_RE.finditer(text):
            if plausible(m.group("s"), bare=False, spaced=False):
                yield m.span("s")
        for m in _URL_TOKEN_USER_RE.finditer(text):
            if random_like(m.group("s")):
                yield m.span("s")
    if needs.holds(text, ("hooks.slack.com/", "discord", "IncomingWebhook/")):
        for m in _VENDOR_WEBHOOK_RE.finditer(text):
            group = next(g for g in ("s", "s2", "s3") if m.group(g) is not None)
            if not MASKED_RE.search(m.group(group)):  # the docs' `.../XXXXXXXXXXXXXXXXXXXXXXXX`
                yield m.span(group)
    if url and needs.holds(text, ("hook",)):  # a token only follows a segment of `_HOOK_SEGMENTS`
        yield from _webhook_spans(text)
    if not needs.holds(text, ("sig=",)):
        return
    for m in _SAS_SIGNATURE_RE.finditer(text):
        if not MASKED_RE.search(m.group("s")):
            yield m.span("s")


def _webhook_spans(text: str) -> Iterator[tuple[int, int]]:
    """The token segment of a URL after a `hooks/` segment: a random segment with a digit, not a
    route name, that ends the path (or is followed by `)`, `]`, `>` or `,` as in prose or Markdown)."""
    for m in _HTTP_URL_RE.finditer(text):
        at = m.start("path")
        after_hook = False
        segments = m.group("path").split("/")
        for i, segment in enumerate(segments):
            found = _TOKEN_SEGMENT_RE.match(segment) if after_hook else None
            rest = segment[found.end() :] if found else ""
            # What may follow the token: the end of the path, or punctuation of the text around
            # the URL (`see <url>.`, Markdown's backticks and brackets), not `.json` of a file name.
            ends = (rest.strip(_TRAILING) == "" and bool(rest)) or (not rest and i == len(segments) - 1)
            if found and ends and _webhook_token(found.group()):
                yield at, at + found.end()
            after_hook = after_hook or segment in _HOOK_SEGMENTS
            at += len(segment) + 1


def _webhook_token(value: str) -> bool:
    """A random segment with a digit, not a route name."""
    return random_like(value) and any(c.isdigit() for c in value) and not _route_like(value)


def _route_like(value: str) -> bool:
    """A route name made of words (`useAuthTokenRefresher2`, `deploy-staging-eu-west-1`), not a
    token: its letters come in words of several characters, its numbers are short and few."""
    parts = [p for p in _ROUTE_PARTS_RE.split(value) if p]
    words = [p for p in parts if p.isalpha()]
    numbers = [p for p in parts if p.isdigit()]
    if not words or len(words) + len(numbers) != len(parts) or len(numbers) > 2:
        return False
    return all(len(n) <= 4 for n in numbers) and sum(map(len, words)) / len(words) >= 3.5


#: A header's name (`X-Hub-Signature-256`, `Sec-WebSocket-Protocol`): words joined by dashes.
_HEADER_WORD = r"(?:(?:[A-Z][a-z]+)+|[A-Z]+|[a-z]+)"
_HEADER_NAME_RE = re.compile(rf"{_HEADER_WORD}(?:-(?:{_HEADER_WORD}|[0-9]+))+")


def header_spans(text: str) -> Iterator[tuple[int, int]]:
    """`Bearer`/`Basic` credentials, `Authorization:` values, session cookies."""
    for regex, present in (
        (_BEARER_RE, needs.holds(text, ("earer", "EARER"))),
        (_BASIC_RE, needs.holds(text, ("asic", "ASIC"))),
        (_AUTH_HEADER_RE, needs.folds(text, ("authorization",))),
    ):
        for m in regex.finditer(text) if present else ():
            value = m.group("s")
            if not token_like(value):
                continue
            # Two strings (`.header("Authorization", "...")`) may be a list of header names (CORS):
            # the second is a credential under a scheme, or when it looks machine-made (not a name).
            if (
                regex is _AUTH_HEADER_RE
                and m.group("pair")
                and not m.group("scheme")
                and (not random_like(value) or _HEADER_NAME_RE.fullmatch(value))
            ):
                continue
            yield m.span("s")
    if needs.folds(text, ("cookie",)):
        yield from _cookie_spans(text)
    if needs.folds(text, ("sess", "connect.sid")):
        yield from _session_spans(text)


def _cookie_spans(text: str) -> Iterator[tuple[int, int]]:
    """Session values of `Cookie:` / `Set-Cookie:` lines."""
    for line in _COOKIE_LINE_RE.finditer(text):
        for m in _COOKIE_PAIR_RE.finditer(text, line.start(), line.end()):
            value = m.group("s")
            # A session id is often plain hex (`JSESSIONID=1A2B...`): random enough under that name.
            if _COOKIE_NAME_RE.search(m.group("name")) and (
                random_like(value) or (len(value) >= 16 and HEX_RE.match(value))
            ):
                yield m.span("s")


def _session_spans(text: str) -> Iterator[tuple[int, int]]:
    """Session ids by their well-known names (`_SESSION_RE`)."""
    for m in _SESSION_RE.finditer(text):
        value = m.group("s")
        if MASKED_RE.search(value) or (CODE_REF_RE.match(value) and not any(c.isdigit() for c in value)):
            continue  # a placeholder, or code (`session_id=request.session.session_key`)
        if random_like(value) or HEX_RE.match(value):
            yield m.span("s")


def key_value_spans(text: str) -> Iterator[tuple[int, int]]:
    """Values labelled by a secret-ish name: `k=v`, `k: v`, `"k": "v"`, `<k>v</k>`, `key="k" value="v"`."""
    if not needs.folds(text, needs.LABEL_WORDS):
        return  # no name here could label a secret (`values.name_strength`)
    words = _KV_WORD_RE.finditer(text) if needs.holds(text, ("=", ":", "%3", "：")) else iter(())
    for word in words:
        name_start = word.start()
        while name_start > 0 and word.end() - name_start < 80 and text[name_start - 1] in _NAME_CHARS:
            name_start -= 1
        name = text[name_start : word.end()]
        strength = name_strength(name)
        if not strength:
            continue
        # `https://x-access-token:TOKEN@host`: the URL rule owns userinfo; here it would eat the host.
        before = line_before(text, name_start)
        if _URL_AUTHORITY_TAIL_RE.search(before) or _ARN_TAIL_RE.search(before):
            continue  # ... and `arn:aws:secretsmanager:...:secret:prod/db` names a secret, not its value
        if text.startswith("${", name_start - 2):
            # A shell expansion (`${DB_PASSWORD:-default}`): its default is a value, its `:?` text
            # is the message printed when the variable is unset.
            given = _EXPANSION_DEFAULT_RE.match(text, word.end())
            value = given["value"] if given else ""
            kept = strength == 2 or random_like(value)
            if given and kept and plausible(value, bare=True, spaced=False, assigned=strength == 2):
                yield given.span("value")
            continue
        m = _KV_VALUE_RE.match(text, word.end())
        if m is None:
            continue
        group = value_group(m)
        start, end = m.span(group)
        if group == "bare":
            end = _bare_end(text, start, end)
            if end <= start or _code_like(text, start, end) or _PAREN_WORDS_RE.match(text, start):
                continue
        value = text[start:end]
        # After `:` prose is common (`using password: YES`, `reset_password: enabled`), but not
        # under a config key that ends its line (`DB_PASSWORD: hunter`, `a.b.password: Winter`).
        prose = m.group("sep") in (":", "：") and not (
            (name.isupper() or "." in name) and _LINE_END_RE.match(text, m.end(group)) is not None
        )
        # An environment variable's value (`POSTGRES_PASSWORD=password`, the same as a compose
        # file's `POSTGRES_PASSWORD: password` ending its line): set, whatever word it is.
        assigned = strength == 2 and name.isupper() and not prose
        if not plausible(value, bare=group == "bare", spaced=prose, assigned=assigned):
            continue
        if strength == 1 and not (random_like(value) or env_hex_key(name, value)):
            continue
        yield start, end
    for m in _NAME_VALUE_RE.finditer(text) if needs.holds(text, ("name",)) else ():
        strength = name_strength(m.group("name"))
        group = value_group(m)
        start, end = m.span(group)
        if group == "bare":
            end = _bare_end(text, start, end)
        value = text[start:end]
        if not strength or end <= start or not plausible(value, bare=group == "bare", spaced=False):
            continue
        if group == "bare" and _PAREN_WORDS_RE.match(text, start):
            continue
        if strength == 2 or random_like(value):
            yield start, end
    for m in _DIRECTIVE_RE.finditer(text):
        # A config file's `name value` line (redis.conf's `requirepass`, `SECRET_KEY_BASE 8a7d...`):
        # the line holds nothing else, so the name labels the value as `=` would. Prose lines of two
        # words (`Password required`, `token expired`) hold a word, which `plausible` refuses.
        if name_strength(m.group("name")) != 2:
            continue
        start, end = m.span("s")
        value, quoted = text[start:end], m.group("q") != ""
        if not plausible(value, bare=not quoted, spaced=True) or _code_like(text, start, end):
            continue
        if quoted or token_like(value):  # bare, a credential's mix: not `incorrect!` or `1234`
            yield start, end
    for regex, present in (
        (_XML_TAG_RE, needs.holds(text, ("</",))),
        (_KEY_VALUE_ATTR_RE, needs.holds(text, ("key=",)) and needs.holds(text, ("value=",))),
        (_PLIST_RE, needs.holds(text, ("<key>",))),
        (_TF_VARIABLE_RE, needs.holds(text, ("variable",)) and needs.holds(text, ("default",))),
    ):
        for m in regex.finditer(text) if present else ():
            strength = name_strength(m.group("name"))
            value = m.group("s")
            if not strength or not plausible(value, bare=False, spaced=False):
                continue
            if strength == 2 or random_like(value):
                yield m.span("s")


# `the admin password is Xk9vL2qP7`, `auth token 273d7c...`: a value named in prose, after a
# secret's word and a blank, with a copula between them or not. Prose is mostly words (a camel-case
# name among them), so the value must hold a digit and look made: after a copula, a credential's
# mix (`token_like`), as after a password's word; right after another word, machine-made
# (`random_like`, or 32 hex digits or more).
_PROSE_RE = re.compile(
    r"(?i:\b(?:pass(?:word|wd|phrase)?|secret|token|api[ _-]?key|access[ _-]key))"
    r"(?:[ \t]+(?P<cop>is|was|are|were|to)(?:[ \t]+(?:now|still))?)?[ \t]+[`'\"]?(?P<s>[^\s'\"`<>]{8,512})"
    # Chinese: 密码是 X, 密钥：X (no blank needed, and the value ends at CJK punctuation).
    r"|(?:密码|密钥|秘钥|口令|令牌)[ \t]*(?P<zh>是|为|：|:)[ \t]*[`'\"“]?"
    r"(?P<z>[^\s'\"`<>，。、；！？“”（）]{6,512})"
)


_VERSION_RE = re.compile(r"v?\d+(?:\.\d+)+(?:[-+][\w.]+)?$", re.IGNORECASE)


def prose_spans(text: str) -> Iterator[tuple[int, int]]:
    """Values named by a secret's word in a sentence: `the password is ...`, `token ...`."""
    if not needs.folds(text, ("pass", "secret", "token", "key", "密码", "密钥", "秘钥", "口令", "令牌")):
        return
    for m in _PROSE_RE.finditer(text):
        start, end = m.span("z" if m.group("z") else "s")
        end = _bare_end(text, start, end)
        value = text[start:end]
        if end - start < 8 or not plausible(value, bare=True, spaced=True) or _code_like(text, start, end):
            continue
        if not any(c.isdigit() for c in value) or "/" in value or _VERSION_RE.match(value):
            continue  # words, a path (`node_modules/.bin/tsc2`), a version (`v2.3.1-rc1`)
        made = random_like(value) or (len(value) >= 32 and HEX_RE.match(value) is not None)
        # A password's word names its value even without a copula (`password Xk92jfLq0`).
        named = m.group("cop") or m.group("zh") or m.group(0)[:4].lower() == "pass"
        if made or (named and token_like(value)):
            yield start, end


def _bare_end(text: str, start: int, end: int) -> int:
    """Where a bare value found at `start:end` (up to a blank or a quote) really ends."""
    cut = _BARE_CUT_RE.search(text, start, end)
    if cut is not None:
        end = cut.start()
    while end > start:
        last = text[end - 1]
        if last in _BARE_TRAILING:
            end -= 1
        elif last in _CLOSERS and text.count(_CLOSERS[last], start, end) < text.count(last, start, end):
            end -= 1  # `(see password=X)`: the bracket is the prose's
        else:
            break
    return end


def _code_like(text: str, start: int, end: int) -> bool:
    """`getpass()`, `os.environ["X"]`, `ENC[AES256,...]`: a call or a structure, not a secret."""
    opened = _CALL_RE.match(text, start, end)
    if not opened or any(c.isdigit() for c in opened.group()):
        return False  # `sk9(abc)def`: a random value that holds a bracket
    nested = any(c in ":=" for c in text[opened.end() : end])  # Go's `map[password:X ...]`
    return nested or text[end - 1] in _CLOSERS or (end < len(text) and text[end] in "\"'")
