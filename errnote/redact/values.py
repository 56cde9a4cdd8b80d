"""Whether a labelled value is a secret: how strongly a name labels one, and what a real credential
looks like next to a word, a reference, a path, a placeholder or a mask."""

from __future__ import annotations

import re

# --- how names and values are judged ----------------------------------------------------------------
# Words that make a name label a secret when they end it. Long words count even glued to a prefix
# (`PGPASSWORD`, `_authToken`); short ones must be a whole component (`pass`, not `bypass`).
_STRONG_SUFFIXES = (
    "password", "passwd", "passphrase", "secret", "token", "storepass", "keypass", "apikey",
    "accesskey", "secretkey", "privatekey", "accountkey", "signingkey", "encryptionkey", "masterkey",
    "appkey", "licensekey", "writekey", "adminkey", "serverkey", "hmackey", "storagekey", "keybase",
    "authkey", "requirepass", "masterauth",  # Redis's passwords
)  # fmt: skip


_STRONG_COMPONENTS = {"pass", "pwd", "pw", "bearer"}


# Looser labels: only a value that looks random is masked under these.
_WEAK_COMPONENTS = {"key", "auth", "psk"}  # psk: a Wi-Fi pre-shared key (`psk=auto` is not one)


# Components that, right before the secret word, make the value an id, cursor or public material.
_NOT_SECRET_QUALIFIERS = {
    "page", "next", "continuation", "sync", "lock", "idempotency", "cancellation", "cancel", "resume",
    "pagination", "cursor", "public", "publishable", "pub", "cache", "sort", "partition", "primary",
    "foreign", "object", "row", "host", "ssh", "gpg", "pgp", "file", "path", "existing",
}  # fmt: skip


_NAME_SPLIT_RE = re.compile(r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])")


# Values that are words, references or masks rather than secrets.
_LITERALS = {
    "none", "null", "nil", "undefined", "true", "false", "yes", "no", "on", "off", "n/a", "na",
    "redacted", "hidden", "masked", "secret", "password", "token", "required", "optional", "string",
    "str", "int", "bool", "object", "any", "unset", "empty", "default", "invalid", "expired", "missing",
    "bearer", "basic", "changeme", "change_me", "change-me", "changeit", "replaceme", "replace_me",
    "replace-me", "dummy", "sample", "example", "fake", "todo", "tbd", "fixme",
}  # fmt: skip


_PLACEHOLDER_PREFIXES = ("$", "%", "<", "!", "{", "#{", "@{", "enc[", "vault:", "op://", "ref+", "your")


# Keys made to be public whatever name holds them: Stripe's publishable keys, Mapbox's public tokens.
_PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "pk.eyj")


MASKED_RE = re.compile(r"^[*xX•.#?+-]+$|\*\*\*|…|redacted", re.IGNORECASE)


CODE_REF_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")


_PATH_RE = re.compile(r"^(?:~|\.{1,2})?/[\w./-]*$")


_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")


HEX_RE = re.compile(r"^[0-9a-fA-F]+$")


_KEBAB_WORDS_RE = re.compile(r"^[a-z]+(?:[-_][a-z]+)+$")  # `db-creds`, `not_found`: names, not passwords


def name_strength(name: str) -> int:
    """2 if `name` labels a secret, 1 if it may (mask only random values), 0 if it does not."""
    parts = [p.lower() for p in _NAME_SPLIT_RE.split(name) if p]
    if not parts:
        return 0
    if any(p in ("public", "publishable") for p in parts):
        return 0
    last = parts[-1]
    before = parts[-2] if len(parts) > 1 else ""
    if before in _NOT_SECRET_QUALIFIERS:
        return 0
    if last in _STRONG_COMPONENTS or last.endswith(_STRONG_SUFFIXES):
        return 2
    joined = "".join(parts[-3:])  # `api_key`, `access-key`, `SecretAccessKey` -> one word
    if joined.endswith(_STRONG_SUFFIXES):
        return 2
    if last in _WEAK_COMPONENTS and (last != "key" or before):
        return 1
    return 0


#: Words that are a value set (a weak default password) when an environment variable is given
#: them (`POSTGRES_PASSWORD=password`), though elsewhere they name a field (`type=password`).
_SET_WORDS = frozenset({"password", "passwd", "secret", "token"})


def plausible(value: str, *, bare: bool, spaced: bool, assigned: bool = False) -> bool:
    """Whether a labelled value is a real secret rather than a word, reference, path or mask.

    `bare` means the value was not quoted; `spaced` means it followed `:` or a space, where prose
    (`using password: YES`, `--password via the CLI`) is common, so plain words are not secrets.
    `assigned`: the value is given to an environment variable (`DB_PASSWORD=...`), so a word such
    as `password` is the password set, not the name of a field.
    """
    low = value.lower()
    literal = low in _LITERALS and not (assigned and low in _SET_WORDS)
    # Under four characters is a stub (`abc`, `x`), not a credential anyone could use.
    if len(value.strip()) < 4 or literal or MASKED_RE.search(value):
        return False
    if low.startswith(_PLACEHOLDER_PREFIXES) or "://" in value or "-----begin" in low:
        return False
    if low.startswith(_PUBLIC_PREFIXES):
        return False
    if low.startswith("arn:"):  # the name of a secret in AWS (`arn:aws:secretsmanager:...`), not its value
        return False
    if "placeholder" in low or _PATH_RE.match(value):
        return False
    if bare:
        # `os.environ`, `settings.API_KEY`, `api_key=api_key`: code passing a secret, not the secret.
        if (
            CODE_REF_RE.match(value)
            and not any(c.isdigit() for c in value)
            and ("_" in value or "." in value)
        ):
            return False
        word = value.isalpha() and len(value) <= 12 and not random_letters(value)
        if spaced and (word or _KEBAB_WORDS_RE.match(value)):
            return False
    return True


# A run of letters as case splits them: an upper-case run, or a word with one capital at most.
_CASE_RUN_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")


def random_letters(value: str) -> bool:
    """Letters of both cases mixed the way a generator mixes them (`CqGqOlDsjmvG`), not words put
    together (`MyPassword`, `HTTPServer`): split at case changes, its runs average under three letters."""
    if not value.isalpha() or len(value) < 8:
        return False
    uppers = sum(c.isupper() for c in value)
    if uppers < 3 or len(value) - uppers < 3:
        return False
    runs = _CASE_RUN_RE.findall(value)
    return len(value) / len(runs) < 3


def random_like(value: str) -> bool:
    """Whether a value under a loose label looks machine-generated: long, mixed, not an id or digest."""
    if len(value) < 16 or _UUID_RE.match(value) or HEX_RE.match(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_lower = any(c.islower() for c in value)
    has_upper = any(c.isupper() for c in value)
    return (has_digit and (has_lower or has_upper)) or (has_lower and has_upper and len(value) >= 20)


def env_hex_key(name: str, value: str) -> bool:
    """An UPPER_SNAKE `*_KEY` variable holding a long hex string is a vendor key (`DD_APP_KEY`).

    Lower-case names (`cache_key = "3f9a..."`) are left alone: in code those are usually digests.
    """
    return name.isupper() and len(value) >= 20 and bool(HEX_RE.match(value))


def token_like(value: str) -> bool:
    """Whether a `Bearer`/`Basic`/header credential is real rather than `undefined` or `$TOKEN`."""
    if len(value) < 8 or value.lower() in _LITERALS or MASKED_RE.search(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return has_digit or (mixed and len(value) >= 16)


def value_group(m: re.Match[str]) -> str:
    """Name of the value alternative (dq/sq/pq: URL-encoded quotes/bare) that matched."""
    found = m.groupdict()
    for group in ("dq", "sq", "pq", "bare"):
        if found.get(group) is not None:
            return group
    return ""


def line_before(text: str, pos: int) -> str:
    """The text from the start of the line holding `pos` up to `pos`, at most 512 characters.

    The cap keeps a pathological one-line input linear; a command's options sit well within it.
    """
    window = max(0, pos - 512)
    return text[text.rfind("\n", window, pos) + 1 or window : pos]
