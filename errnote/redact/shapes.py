"""Secrets found by their shape: vendor tokens with a fixed prefix, Slack tokens, JWTs, private key
blocks and AWS keys are secrets wherever they appear."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from errnote.redact import needs

# --- secrets by shape -------------------------------------------------------------------------------
# Each vendor prefix is distinctive enough that the token is a secret wherever it appears. The
# bodies use the exact alphabets so that already-masked forms such as `sk_live_****1234` (a `*`
# right after the prefix) never match.
# Each entry: the pattern, and the strings it cannot match without (one of them): `_shape_re`
# leaves out of the scan the patterns a text cannot match (`needs`).
_GITLAB: tuple[str, ...] = ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glft-", "glimt-")
_GITLAB += ("glsoat-", "glsst-", "glffct-", "glagent-")
_AWS_IDS = ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")
_PREFIXED: list[tuple[str, tuple[str, ...]]] = [
    # GitHub classic / OAuth / app tokens, GitHub fine-grained PAT, GitLab
    (r"gh[pousr]_[A-Za-z0-9]{36,255}", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    (r"github_pat_[A-Za-z0-9_]{22,255}", ("github_pat_",)),
    (r"gl(?:pat|dt|ptt|rt|cbt|oas|ft|imt|soat|sst|ffct|agent)-[A-Za-z0-9_-]{20,}", _GITLAB),
    # Slack tokens and JWTs: see _slack_spans and _jwt_spans.
    (r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", ("k_live_", "k_test_")),  # Stripe secret, restricted
    (r"whsec_[A-Za-z0-9+/=]{24,}", ("whsec_",)),  # Stripe webhook signing secret
    (r"sk-ant-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),  # Anthropic
    (r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", ("sk-",)),  # OpenAI and the many sk- lookalikes
    (r"AIza[0-9A-Za-z_-]{35}", ("AIza",)),  # Google API key
    (r"ya29\.[0-9A-Za-z_-]{20,}", ("ya29.",)),  # Google OAuth access token
    (r"npm_[A-Za-z0-9]{36}", ("npm_",)),  # npm
    (r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}", ("SG.",)),  # SendGrid
    (r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}", _AWS_IDS),  # AWS access key ids (not AROA role ids)
    (r"pypi-Ag[A-Za-z0-9_-]{50,}", ("pypi-Ag",)),  # PyPI upload token (a macaroon)
    (r"hf_[A-Za-z0-9]{30,}", ("hf_",)),  # Hugging Face
    (r"SK[0-9a-f]{32}", ("SK",)),  # Twilio API key sid (AC... account sids are ids, not secrets)
    (r"dop_v1_[a-f0-9]{64}|do[or]_v1_[a-f0-9]{64}", ("_v1_",)),  # DigitalOcean
    (r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", ("shpat_", "shpca_", "shppa_", "shpss_")),  # Shopify
    (r"lin_api_[A-Za-z0-9]{40}", ("lin_api_",)),  # Linear
    (r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", ("PMAK-",)),  # Postman
    (r"dp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}", ("dp.",)),  # Doppler
    (r"hv[sb]\.[A-Za-z0-9_-]{24,}", ("hvs.", "hvb.")),  # HashiCorp Vault
    (r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}", ("glsa_", "glc_")),  # Grafana
    (r"NRAK-[A-Z0-9]{27}", ("NRAK-",)),  # New Relic
    (r"sntry[su]_[A-Za-z0-9+/=_]{40,}", ("sntry",)),  # Sentry
    (r"dckr_pat_[A-Za-z0-9_-]{20,}", ("dckr_pat_",)),  # Docker Hub
    (r"ATATT3[A-Za-z0-9_=-]{50,}", ("ATATT3",)),  # Atlassian API token
    (r"dapi[a-f0-9]{32}(?:-\d)?", ("dapi",)),  # Databricks
    (r"AGE-SECRET-KEY-1[0-9A-Z]{58}", ("AGE-SECRET-KEY-1",)),  # age
    (r"figd_[A-Za-z0-9_-]{40,}", ("figd_",)),  # Figma
    (r"sbp_[a-f0-9]{40}", ("sbp_",)),  # Supabase
    (r"r8_[A-Za-z0-9]{37}", ("r8_",)),  # Replicate
    (r"gsk_[A-Za-z0-9]{48,}", ("gsk_",)),  # Groq
    (r"xai-[A-Za-z0-9]{60,}", ("xai-",)),  # xAI
    (r"pplx-[A-Za-z0-9]{40,}", ("pplx-",)),  # Perplexity
    (r"HRKU-[A-Za-z0-9_-]{20,}", ("HRKU-",)),  # Heroku
    (r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}", ("tskey-",)),  # Tailscale
    (r"CCIPAT_[A-Za-z0-9]{20,}_[a-f0-9]{40}", ("CCIPAT_",)),  # CircleCI
    (r"key-[0-9a-f]{32}|[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}", ("key-", "-")),  # Mailgun (old and new)
    (r"[0-9a-f]{32}-us\d{1,2}", ("-us",)),  # Mailchimp
    (r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9_-]{60}", ("sq0atp-", "sq0csp-", "EAAA")),  # Square
    (r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}", ("xkeysib-",)),  # Brevo
    (r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}", ("pscale_",)),  # PlanetScale
    (r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", ("pat",)),  # Airtable
    (r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}", (".atlasv1.",)),  # Terraform Cloud
    (r"ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}", ("ntn_", "secret_")),  # Notion
    (r"AKCp[0-9A-Za-z]{69}", ("AKCp",)),  # JFrog Artifactory
    (r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}", ("Q~",)),  # Azure AD client secret
    (r"sq[upa]_[a-f0-9]{40}", ("squ_", "sqp_", "sqa_")),  # SonarQube user, project and analysis tokens
    (r"LTAI[A-Za-z0-9]{12,30}", ("LTAI",)),  # Alibaba Cloud AccessKey id
    (r"AKID[A-Za-z0-9]{32,40}", ("AKID",)),  # Tencent Cloud SecretId
    # Firebase Cloud Messaging server key (not the format shown in docs: `AAAAxxxxxxx:APA91bxxxx...`)
    (r"AAAA[A-Za-z0-9_-]{7}:APA91b(?![xX]{8})[A-Za-z0-9_-]{120,160}", (":APA91b",)),
    # Discord bot token: the bot's id in base64 (a number: `MT`, `Nz`, `OD`...), a time, an HMAC.
    (r"(?:M[TDjz]|N[DTjz]|O[DTj])[A-Za-z0-9_-]{22,26}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}", (".",)),
    # Mapbox secret token (pk.eyJ... is public)
    (r"sk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}", ("sk.eyJ",)),
    # A base64-encoded PEM private key (kubeconfig `client-key-data`, k8s Secret data): "-----BEGIN "
    # then "PRIVATE KEY" at any of the three base64 alignments. Certificates encode differently.
    (
        r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,40}?(?:UFJJVkFURSBLRVk|BSSVZBVEUgS0VZ|QUklWQVRFIEtFW)[A-Za-z0-9+/]*={0,2}",
        ("LS0tLS1CRUdJTi",),
    ),
]


@lru_cache(maxsize=256)
def _shapes_of(kinds: tuple[int, ...]) -> re.Pattern[str]:
    """One pattern for the prefixed tokens `kinds` (indexes into `_PREFIXED`, in its order).
    Lookarounds keep a match from starting or ending inside a longer word."""
    body = "|".join(_PREFIXED[k][0] for k in kinds)
    return re.compile(r"(?<![A-Za-z0-9_])(?:" + body + r")(?![A-Za-z0-9_-])")


_ALL_KINDS = tuple(range(len(_PREFIXED)))


#: Each need of `_PREFIXED` with the index of its pattern, tested in one loop.
_NEEDS = tuple((need, kind) for kind, (_regex, wanted) in enumerate(_PREFIXED) for need in wanted)


def _shape_re(text: str) -> re.Pattern[str] | None:
    """The pattern of the prefixed tokens `text` may hold: the alternatives whose needs it lacks
    could match nowhere in it, so without them the scan finds the very same matches (in order,
    the first alternative that matches at a place wins either way), faster; None for none."""
    if not needs.GATED:
        return _shapes_of(_ALL_KINDS)
    kinds = {kind for need, kind in _NEEDS if need in text}
    return _shapes_of(tuple(sorted(kinds))) if kinds else None


# Slack tokens (`xoxb-`, `xoxp-` ... and app-level `xapp-1-`) and JWTs (`eyJ` header, payload and
# signature) may hold their own prefix in their body (`xoxb-xoxb-...`, `-eyJ-eyJ-...`): a pattern
# started at every repeat reads the rest of the run each time (quadratic). They are found by
# reading each run of token characters once (`_slack_spans`, `_jwt_spans`).
_SLACK_PREFIX_RE = re.compile(r"xox[abposer]-|xapp-\d-")


_JWT_PREFIX_RE = re.compile(r"eyJ")


_SLACK_RUN_END_RE = re.compile(r"[A-Za-z0-9_-]*")


_JWT_RUN_END_RE = re.compile(r"[A-Za-z0-9_.-]*")


_SLACK_BODY_MIN = 10


_JWT_PART_MIN = 8


# Telegram bot tokens often sit right after `/bot` in an API URL, so no left word boundary.
_TELEGRAM_RE = re.compile(r"(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])")


# A private key is the whole block, BEGIN to END, whether its newlines are real or `\n` escapes.
_PEM_RE = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY((?: BLOCK)?)-----.{0,16384}?-----END \1PRIVATE KEY\2-----",
    re.DOTALL,
)


# A key cut short by a truncated log has no END line: take the header and the base64 lines after it.
_PEM_TRUNCATED_RE = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?:\r?\n|\\r?\\n)[ \t]*(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Comment): [^\n\\]*))+"
)


# AWS secret keys have no prefix: 40 base64 characters, recognised by their label ...
_AWS_SECRET_LABEL_RE = re.compile(
    r"(?i:secret[_ \t-]*access[_ \t-]*key)[^\n:=]{0,30}[:=][ \t]*[\"']?"
    r"(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)


# ... or by a looser label a few words before it (`aws configure set aws_secret_access_key X`,
# "the secret key is X"), when the value is mixed case or holds `/` `+` (not a 40-hex git SHA).
_AWS_SECRET_LOOSE_RE = re.compile(
    r"(?i:secret[_ \t-]*(?:access[_ \t-]*)?key)s?\b[^\n]{0,30}?"
    r"(?<![A-Za-z0-9/+=])(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)


# ... or by sitting right after an access key id (CSV exports, `aws configure list`, env dumps).
_AWS_SECRET_NEAR_RE = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


_AWS_KEY_ID_RE = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")


def _shape_ok(value: str) -> bool:
    """Reject prefix lookalikes made of plain words (`sk-this-is-not-a-key`): real tokens are random.
    An AWS key id is upper case, and some have no digit: its 16 characters must be varied (not the
    docs' `AKIAXXXXXXXXXXXXXXXX`)."""
    if value.startswith(_AWS_IDS) and len(value) == 20 and value.isupper():
        return len(set(value[4:])) >= 8
    return any(c.isdigit() for c in value) or (
        any(c.islower() for c in value) and any(c.isupper() for c in value)
    )


def shape_spans(text: str) -> Iterator[tuple[int, int]]:
    """Private key blocks and prefixed tokens: secrets wherever they appear."""
    if needs.holds(text, ("-----BEGIN ",)) and needs.holds(text, ("PRIVATE KEY",)):
        for regex in (_PEM_RE, _PEM_TRUNCATED_RE):
            for m in regex.finditer(text):
                yield _pem_body(text, m.start(), m.end())
    if needs.holds(text, (":AA",)):
        for m in _TELEGRAM_RE.finditer(text):
            yield m.span()
    shapes = _shape_re(text)
    if shapes is not None:
        for m in shapes.finditer(text):
            if _shape_ok(m.group()):
                yield m.span()
    if needs.holds(text, ("xox", "xapp-")):
        yield from _slack_spans(text)
    if needs.holds(text, ("eyJ",)):
        yield from _jwt_spans(text)


#: Line breaks inside a key block, real or written as escapes, and what starts the next line
#: before the key's characters (indentation, a comment's `# `).
_BREAKS_AT_START = re.compile(r"(?:(?:\r?\n|(?:\\r)?\\n)[ \t#>*;/\"']*)+")
_BREAKS_AT_END = re.compile(r"(?:(?:\r?\n|(?:\\r)?\\n)[ \t#>*;/\"']*)+\Z")


def _pem_body(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of a key block to mask: its body, between the BEGIN and END lines, which stay (a
    reader sees that a key of that kind was there); the whole block when it has no body."""
    head_end = text.index("-----", start + 5) + 5
    foot = text.rfind("-----END ", head_end, end)
    body_end = end if foot < 0 else foot
    lead = _BREAKS_AT_START.match(text, head_end, body_end)
    body_start = lead.end() if lead else head_end
    tail = _BREAKS_AT_END.search(text[body_start:body_end])
    if tail:
        body_end = body_start + tail.start()
    return (body_start, body_end) if body_start < body_end else (start, end)


def _run_around(text: str, pos: int, chars: str, end_re: re.Pattern[str]) -> tuple[int, int]:
    """The run of `chars` characters holding `pos`: (start, end)."""
    start = pos
    while start > 0 and text[start - 1] in chars:
        start -= 1
    return start, end_re.match(text, pos).end()  # type: ignore[union-attr]  # `*` always matches


_SLACK_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


_JWT_CHARS = _SLACK_CHARS + "."


def _slack_spans(text: str) -> Iterator[tuple[int, int]]:
    """Slack tokens: a prefix that starts its run or follows a dash in it (`${T:-xoxb-...}`,
    `slack-xoxb-...`), then token characters to the end of the run, with no `_` (not Slack's)."""
    done = 0  # runs end before here are read
    for m in _SLACK_PREFIX_RE.finditer(text):
        if m.start() < done:
            continue
        start, end = _run_around(text, m.start(), _SLACK_CHARS, _SLACK_RUN_END_RE)
        done = end
        first = max(start, text.rfind("_", start, end) + 1)
        for c in _SLACK_PREFIX_RE.finditer(text, first, end):
            if c.start() > start and text[c.start() - 1] != "-":
                continue  # inside a word (`abcxoxb-`): not where a token starts
            if end - c.end() >= _SLACK_BODY_MIN and _shape_ok(text[c.start() : end]):
                yield c.start(), end
            break  # the first start is the longest token: a later one is part of it


def _jwt_spans(text: str) -> Iterator[tuple[int, int]]:
    """JWTs: three dot-separated parts of token characters, the first from an `eyJ` that starts its
    part or follows a dash in it, each part at least 8 characters after the prefix."""
    done = 0
    for m in _JWT_PREFIX_RE.finditer(text):
        if m.start() < done:
            continue
        start, end = _run_around(text, m.start(), _JWT_CHARS, _JWT_RUN_END_RE)
        done = end
        parts: list[tuple[int, int]] = []
        at = start
        while at <= end:
            dot = text.find(".", at, end)
            stop = end if dot < 0 else dot
            parts.append((at, stop))
            at = stop + 1
        i = 0
        while i + 2 < len(parts):
            head, tail = parts[i], parts[i + 2]
            q = text.find("eyJ", head[0], head[1])
            while q > head[0] and text[q - 1] != "-":
                q = text.find("eyJ", q + 1, head[1])
            if (
                q >= 0
                and head[1] - q - 3 >= _JWT_PART_MIN
                and all(b - a >= _JWT_PART_MIN for a, b in parts[i + 1 : i + 3])
                and _shape_ok(text[q : tail[1]])
            ):
                yield q, tail[1]
                i += 3
            else:
                i += 1


def aws_secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """AWS secret access keys, which have no prefix: by their label or by following a key id."""
    if needs.folds(text, ("secret",)):
        for m in _AWS_SECRET_LABEL_RE.finditer(text):
            yield m.span("s")
        for m in _AWS_SECRET_LOOSE_RE.finditer(text):
            if _random_base64(m.group("s")):
                yield m.span("s")
    if not needs.holds(text, ("AKIA", "ASIA")):
        return
    for key_id in _AWS_KEY_ID_RE.finditer(text):
        window_end = min(len(text), key_id.end() + 300)
        for m in _AWS_SECRET_NEAR_RE.finditer(text, key_id.end(), window_end):
            if _random_base64(m.group()):
                yield m.span()


def _random_base64(value: str) -> bool:
    """Mixed case or `/`/`+` tells a secret key from a 40-hex git SHA."""
    return (
        (any(c.isupper() for c in value) and any(c.islower() for c in value)) or "/" in value or "+" in value
    )
