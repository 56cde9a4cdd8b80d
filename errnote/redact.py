"""Mask secrets in captured command output before errnote writes it to a git-committed file.

A notebook entry stores the text of a failing command and its error, and that text often carries
credentials: tokens pasted into a `curl`, a password in a connection URL, an `.env` dump, a private
key echoed by a CI script. `redact()` replaces each such value with `[REDACTED]` and leaves every
other character alone, so a text without secrets comes back byte-for-byte identical.

Secrets are recognised two ways:
- by shape: vendor tokens with a fixed prefix (`ghp_`, `glpat-`, `xoxb-`, `sk_live_`, `AKIA`, ...),
  JWTs and private key blocks are secrets wherever they appear;
- by context: a value is a secret because of what labels it (`password=`, `X-Api-Key:`,
  `--token`, `Authorization: Bearer`, the `user:password@` part of a URL, a webhook path).
Only the value is masked, never the key name, the scheme word or the quotes. Identifiers, digests,
public material, placeholders (`${X}`, `<your-key>`) and already-masked values are left alone.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

__all__ = ["MASK", "find_secrets", "redact"]

MASK = "[REDACTED]"

# --- secrets by shape -------------------------------------------------------------------------------
# Each vendor prefix is distinctive enough that the token is a secret wherever it appears. The
# bodies use the exact alphabets so that already-masked forms such as `sk_live_****1234` (a `*`
# right after the prefix) never match.
_PREFIXED = [
    r"gh[pousr]_[A-Za-z0-9]{36,255}",  # GitHub classic / OAuth / app tokens
    r"github_pat_[A-Za-z0-9_]{22,255}",  # GitHub fine-grained PAT
    r"gl(?:pat|dt|ptt|rt|cbt|oas|ft|imt|soat|sst|ffct|agent)-[A-Za-z0-9_-]{20,}",  # GitLab
    # Slack tokens and JWTs: see _slack_spans and _jwt_spans.
    r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe secret and restricted keys
    r"whsec_[A-Za-z0-9+/=]{24,}",  # Stripe webhook signing secret
    r"sk-ant-[A-Za-z0-9_-]{20,}",  # Anthropic
    r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",  # OpenAI and the many sk- lookalikes
    r"AIza[0-9A-Za-z_-]{35}",  # Google API key
    r"ya29\.[0-9A-Za-z_-]{20,}",  # Google OAuth access token
    r"npm_[A-Za-z0-9]{36}",  # npm
    r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",  # SendGrid
    r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}",  # AWS access key ids (not AROA role ids)
    r"pypi-Ag[A-Za-z0-9_-]{50,}",  # PyPI upload token (a macaroon)
    r"hf_[A-Za-z0-9]{30,}",  # Hugging Face
    r"SK[0-9a-f]{32}",  # Twilio API key sid (AC... account sids are ids, not secrets)
    r"dop_v1_[a-f0-9]{64}|do[or]_v1_[a-f0-9]{64}",  # DigitalOcean
    r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",  # Shopify
    r"lin_api_[A-Za-z0-9]{40}",  # Linear
    r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",  # Postman
    r"dp\.(?:st|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}",  # Doppler
    r"hv[sb]\.[A-Za-z0-9_-]{24,}",  # HashiCorp Vault
    r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}",  # Grafana
    r"NRAK-[A-Z0-9]{27}",  # New Relic
    r"sntry[su]_[A-Za-z0-9+/=_]{40,}",  # Sentry
    r"dckr_pat_[A-Za-z0-9_-]{20,}",  # Docker Hub
    r"ATATT3[A-Za-z0-9_=-]{50,}",  # Atlassian API token
    r"dapi[a-f0-9]{32}(?:-\d)?",  # Databricks
    r"AGE-SECRET-KEY-1[0-9A-Z]{58}",  # age
    r"figd_[A-Za-z0-9_-]{40,}",  # Figma
    r"sbp_[a-f0-9]{40}",  # Supabase
    r"r8_[A-Za-z0-9]{37}",  # Replicate
    r"gsk_[A-Za-z0-9]{48,}",  # Groq
    r"xai-[A-Za-z0-9]{60,}",  # xAI
    r"pplx-[A-Za-z0-9]{40,}",  # Perplexity
    r"HRKU-[A-Za-z0-9_-]{20,}",  # Heroku
    r"CCIPAT_[A-Za-z0-9]{20,}_[a-f0-9]{40}",  # CircleCI
    r"key-[0-9a-f]{32}",  # Mailgun
    r"[0-9a-f]{32}-us\d{1,2}",  # Mailchimp
    r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}",  # Square
    r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}",  # Brevo
    r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}",  # PlanetScale
    r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",  # Airtable
    r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}",  # Terraform Cloud
    r"ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}",  # Notion
    r"AKCp[0-9A-Za-z]{69}",  # JFrog Artifactory
    r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",  # Azure AD client secret
    r"sk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # Mapbox secret token (pk.eyJ... is public)
    # A base64-encoded PEM private key (kubeconfig `client-key-data`, k8s Secret data): "-----BEGIN "
    # then "PRIVATE KEY" at any of the three base64 alignments. Certificates encode differently.
    r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,40}?(?:UFJJVkFURSBLRVk|BSSVZBVEUgS0VZ|QUklWQVRFIEtFW)[A-Za-z0-9+/]*={0,2}",
]
# Lookarounds keep a match from starting or ending inside a longer word.
_SHAPE_RE = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(_PREFIXED) + r")(?![A-Za-z0-9_-])")
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

# --- secrets by context -----------------------------------------------------------------------------
# `scheme://user:password@host`: only the password. `[^...@/]` keeps the match inside the authority.
_URL_PASSWORD_RE = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#'\"<>]*:(?P<s>[^\s@/?#'\"<>]+)@"
)
# `https://TOKEN@host`: a bare token used as the user name.
_URL_TOKEN_USER_RE = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://(?P<s>[A-Za-z0-9_-]{20,})@")

# An Azure shared access signature: the `sig` query parameter is the credential.
_SAS_SIGNATURE_RE = re.compile(r"[?&]sig=(?P<s>[A-Za-z0-9%+/=_-]{16,})")
# Webhook URLs carry their credential as the last path segment; the ids before it are not secret.
_VENDOR_WEBHOOK_RE = re.compile(
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?:[A-Za-z0-9]+/)+(?P<s>[A-Za-z0-9]{16,})"
    r"|discord(?:app)?\.com/api/webhooks/\d+/(?P<s2>[A-Za-z0-9_-]{40,})"
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
# `Authorization: <scheme> <value>` or a raw `Authorization: <value>`. The value must end the header
# (quote, bracket, line end), which rules out multi-part schemes such as `AWS4-HMAC-SHA256 Credential=`.
_AUTH_HEADER_RE = re.compile(
    r"(?i:(?:proxy-)?authorization)(?:\\?[\"'])?[ \t]*[:=][ \t]*(?:\\?[\"'])?\[?"
    r"(?:(?i:token|bearer|basic|apikey|api-key|key|sso-key|ssws|oauth|geniekey|splunk)[ \t]+)?"
    rf"(?P<s>[{_TOKEN_CHARS}]+=*)(?=\\?[\"'\],;]|\\r|\\n|[ \t]*(?:\r?\n|$))"
)

# `name<sep>value` where the name ends in a secret-ish word. The scan anchors on the word itself
# (cheap for the regex engine), then walks back to recover the whole name, and matches the value
# from the separator on. Anchoring on the word also means a rejected candidate before it
# (`--from-literal=api-token=...`) can never swallow it.
_KV_WORD_RE = re.compile(
    r"(?i:pass(?:word|wd|phrase)?|pwd|pw|secret|token|key(?:_?base)?|auth)"
    r"(?=(?:\\?[\"'])?[ \t]*(?:=>|:=|=|:))"
)
_KV_VALUE_RE = re.compile(
    r"(?:\\?[\"'])?[ \t]*(?P<sep>=>|:=|=|:)[ \t]*"
    # `\[` only for Go's `map[X-Api-Key:[value]]` rendering of headers.
    r"(?:\[(?=[^\]\s]+\]))?(?:\\?\"(?P<dq>[^\"\n]+?)\\?\"|'(?P<sq>[^'\n]+)'|(?P<bare>[^\s\"'`]{1,4096}))"
)
# A bare value is the whole word after the separator, whatever its punctuation (`Xk9;mP2$vL7q`,
# `Tr0ub4dor&3`), except what plainly is not the value's: an escape of the text around it (`\n` in a
# log line), a shell `&&` / `||`, a closing tag, and the next assignment of a list (`&user=`,
# `,host:`). `_bare_end` cuts it there, then drops the punctuation of the prose around it.
_BARE_CUT_RE = re.compile(r"\\[nrt\"'\\]|&&|\|\||</|[,;&|](?=[A-Za-z_][\w.-]*[ \t]*[=:])")
_BARE_TRAILING = ",;:."
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
# `getpass()`, `os.environ[`, `ENC[...]`: a call or a structure, not a secret.
_CALL_RE = re.compile(r"[A-Za-z_][\w.]*[(\[{]")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
# `--password X`, `--api-key=X`, `-storepass X`.
_FLAG_RE = re.compile(
    r"(?<![\w-])--?(?P<name>[A-Za-z][A-Za-z0-9-]*)(?:[ \t]+|=)"
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
_STDIN_ECHO_RE = re.compile(r"\becho[ \t]+(?:-n[ \t]+)?([\"']?)(?P<s>[^\s\"'|]+)\1[ \t]*\|")
# `<password>X</password>` (Maven settings.xml, .NET config) and `<add key="ApiKey" value="X"/>`.
_XML_TAG_RE = re.compile(r"<(?P<name>[A-Za-z_][\w:.-]{0,80})>(?P<s>[^<>\n]+)</(?P=name)>")
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

# --- how names and values are judged ----------------------------------------------------------------
# Words that make a name label a secret when they end it. Long words count even glued to a prefix
# (`PGPASSWORD`, `_authToken`); short ones must be a whole component (`pass`, not `bypass`).
_STRONG_SUFFIXES = (
    "password", "passwd", "passphrase", "secret", "token", "storepass", "keypass", "apikey",
    "accesskey", "secretkey", "privatekey", "accountkey", "signingkey", "encryptionkey", "masterkey",
    "appkey", "licensekey", "writekey", "adminkey", "serverkey", "hmackey", "storagekey", "keybase",
)  # fmt: skip
_STRONG_COMPONENTS = {"pass", "pwd", "pw", "bearer"}
# Looser labels: only a value that looks random is masked under these.
_WEAK_COMPONENTS = {"key", "auth"}
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
    "bearer", "basic",
}  # fmt: skip
_PLACEHOLDER_PREFIXES = ("$", "%", "<", "!", "{", "#{", "@{", "enc[", "vault:", "op://", "ref+", "your")
_MASKED_RE = re.compile(r"^[*xX•.#?-]+$|\*\*\*|…|redacted", re.IGNORECASE)
_CODE_REF_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
_PATH_RE = re.compile(r"^(?:~|\.{1,2})?/[\w./-]*$")
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_HEX_RE = re.compile(r"^[0-9a-fA-F]+$")
_KEBAB_WORDS_RE = re.compile(r"^[a-z]+(?:[-_][a-z]+)+$")  # `db-creds`, `not_found`: names, not passwords
_URL_AUTHORITY_TAIL_RE = re.compile(r"://[^\s/@?#;]*$")  # still inside `user:password@host`
# What may follow a value that ends its line: blanks, a comment, the line end (real or escaped).
_LINE_END_RE = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\r?\n|\\[rn]|$)")
_ARN_TAIL_RE = re.compile(r"\barn:[\w-]+:[^\s,\"'=&;{}]*$")  # within the ARN, not past `,` or `"`
_PORTS_RE = re.compile(r"^[\d.:]+(?:/\w+)?$")


def _name_strength(name: str) -> int:
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


def _plausible(value: str, *, bare: bool, spaced: bool) -> bool:
    """Whether a labelled value is a real secret rather than a word, reference, path or mask.

    `bare` means the value was not quoted; `spaced` means it followed `:` or a space, where prose
    (`using password: YES`, `--password via the CLI`) is common, so plain words are not secrets.
    """
    low = value.lower()
    # Under four characters is a stub (`abc`, `x`), not a credential anyone could use.
    if len(value.strip()) < 4 or low in _LITERALS or _MASKED_RE.search(value):
        return False
    if low.startswith(_PLACEHOLDER_PREFIXES) or "://" in value or "-----begin" in low:
        return False
    if low.startswith("arn:"):  # the name of a secret in AWS (`arn:aws:secretsmanager:...`), not its value
        return False
    if "placeholder" in low or _PATH_RE.match(value):
        return False
    if bare:
        # `os.environ`, `settings.API_KEY`, `api_key=api_key`: code passing a secret, not the secret.
        if (
            _CODE_REF_RE.match(value)
            and not any(c.isdigit() for c in value)
            and ("_" in value or "." in value)
        ):
            return False
        if spaced and ((value.isalpha() and len(value) <= 12) or _KEBAB_WORDS_RE.match(value)):
            return False
    return True


def _random_like(value: str) -> bool:
    """Whether a value under a loose label looks machine-generated: long, mixed, not an id or digest."""
    if len(value) < 16 or _UUID_RE.match(value) or _HEX_RE.match(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_lower = any(c.islower() for c in value)
    has_upper = any(c.isupper() for c in value)
    return (has_digit and (has_lower or has_upper)) or (has_lower and has_upper and len(value) >= 20)


def _env_hex_key(name: str, value: str) -> bool:
    """An UPPER_SNAKE `*_KEY` variable holding a long hex string is a vendor key (`DD_APP_KEY`).

    Lower-case names (`cache_key = "3f9a..."`) are left alone: in code those are usually digests.
    """
    return name.isupper() and len(value) >= 20 and bool(_HEX_RE.match(value))


def _token_like(value: str) -> bool:
    """Whether a `Bearer`/`Basic`/header credential is real rather than `undefined` or `$TOKEN`."""
    if len(value) < 8 or value.lower() in _LITERALS or _MASKED_RE.search(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return has_digit or (mixed and len(value) >= 16)


def _shape_ok(value: str) -> bool:
    """Reject prefix lookalikes made of plain words (`sk-this-is-not-a-key`): real tokens are random."""
    return any(c.isdigit() for c in value) or (
        any(c.islower() for c in value) and any(c.isupper() for c in value)
    )


def _value_group(m: re.Match[str]) -> str:
    """Name of the value alternative (dq/sq/bare) that matched."""
    for group in ("dq", "sq", "bare"):
        if m.group(group) is not None:
            return group
    return ""


def _line_before(text: str, pos: int) -> str:
    """The text from the start of the line holding `pos` up to `pos`, at most 512 characters.

    The cap keeps a pathological one-line input linear; a command's options sit well within it.
    """
    window = max(0, pos - 512)
    return text[text.rfind("\n", window, pos) + 1 or window : pos]


def _shape_spans(text: str) -> Iterator[tuple[int, int]]:
    """Private key blocks and prefixed tokens: secrets wherever they appear."""
    for regex in (_PEM_RE, _PEM_TRUNCATED_RE, _TELEGRAM_RE):
        for m in regex.finditer(text):
            yield m.span()
    for m in _SHAPE_RE.finditer(text):
        if _shape_ok(m.group()):
            yield m.span()
    yield from _slack_spans(text)
    yield from _jwt_spans(text)


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


def _url_spans(text: str) -> Iterator[tuple[int, int]]:
    """Passwords and tokens in URL userinfo, and webhook token segments."""
    for m in _URL_PASSWORD_RE.finditer(text):
        if _plausible(m.group("s"), bare=False, spaced=False):
            yield m.span("s")
    for m in _URL_TOKEN_USER_RE.finditer(text):
        if _random_like(m.group("s")):
            yield m.span("s")
    for m in _VENDOR_WEBHOOK_RE.finditer(text):
        group = "s" if m.group("s") is not None else "s2"
        if not _MASKED_RE.search(m.group(group)):  # the docs' `.../XXXXXXXXXXXXXXXXXXXXXXXX`
            yield m.span(group)
    yield from _webhook_spans(text)
    for m in _SAS_SIGNATURE_RE.finditer(text):
        if not _MASKED_RE.search(m.group("s")):
            yield m.span("s")


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
    return _random_like(value) and any(c.isdigit() for c in value) and not _route_like(value)


def _route_like(value: str) -> bool:
    """A route name made of words (`useAuthTokenRefresher2`, `deploy-staging-eu-west-1`), not a
    token: its letters come in words of several characters, its numbers are short and few."""
    parts = [p for p in _ROUTE_PARTS_RE.split(value) if p]
    words = [p for p in parts if p.isalpha()]
    numbers = [p for p in parts if p.isdigit()]
    if not words or len(words) + len(numbers) != len(parts) or len(numbers) > 2:
        return False
    return all(len(n) <= 4 for n in numbers) and sum(map(len, words)) / len(words) >= 3.5


def _header_spans(text: str) -> Iterator[tuple[int, int]]:
    """`Bearer`/`Basic` credentials, `Authorization:` values, session cookies."""
    for regex in (_BEARER_RE, _BASIC_RE, _AUTH_HEADER_RE):
        for m in regex.finditer(text):
            if _token_like(m.group("s")):
                yield m.span("s")
    for line in _COOKIE_LINE_RE.finditer(text):
        for m in _COOKIE_PAIR_RE.finditer(text, line.start(), line.end()):
            value = m.group("s")
            # A session id is often plain hex (`JSESSIONID=1A2B...`): random enough under that name.
            if _COOKIE_NAME_RE.search(m.group("name")) and (
                _random_like(value) or (len(value) >= 16 and _HEX_RE.match(value))
            ):
                yield m.span("s")
    for m in _SESSION_RE.finditer(text):
        value = m.group("s")
        if _MASKED_RE.search(value) or (_CODE_REF_RE.match(value) and not any(c.isdigit() for c in value)):
            continue  # a placeholder, or code (`session_id=request.session.session_key`)
        if _random_like(value) or _HEX_RE.match(value):
            yield m.span("s")


def _key_value_spans(text: str) -> Iterator[tuple[int, int]]:
    """Values labelled by a secret-ish name: `k=v`, `k: v`, `"k": "v"`, `<k>v</k>`, `key="k" value="v"`."""
    for word in _KV_WORD_RE.finditer(text):
        name_start = word.start()
        while name_start > 0 and word.end() - name_start < 80 and text[name_start - 1] in _NAME_CHARS:
            name_start -= 1
        name = text[name_start : word.end()]
        strength = _name_strength(name)
        if not strength:
            continue
        # `https://x-access-token:TOKEN@host`: the URL rule owns userinfo; here it would eat the host.
        before = _line_before(text, name_start)
        if _URL_AUTHORITY_TAIL_RE.search(before) or _ARN_TAIL_RE.search(before):
            continue  # ... and `arn:aws:secretsmanager:...:secret:prod/db` names a secret, not its value
        m = _KV_VALUE_RE.match(text, word.end())
        if m is None:
            continue
        group = _value_group(m)
        start, end = m.span(group)
        if group == "bare":
            end = _bare_end(text, start, end)
            if end <= start or _code_like(text, start, end):
                continue
        value = text[start:end]
        # After `:` prose is common (`using password: YES`, `reset_password: enabled`), but not
        # under a config key that ends its line (`DB_PASSWORD: hunter`, `a.b.password: Winter`).
        prose = m.group("sep") == ":" and not (
            (name.isupper() or "." in name) and _LINE_END_RE.match(text, m.end(group)) is not None
        )
        if not _plausible(value, bare=group == "bare", spaced=prose):
            continue
        if strength == 1 and not (_random_like(value) or _env_hex_key(name, value)):
            continue
        yield start, end
    for regex in (_XML_TAG_RE, _KEY_VALUE_ATTR_RE):
        for m in regex.finditer(text):
            strength = _name_strength(m.group("name"))
            value = m.group("s")
            if not strength or not _plausible(value, bare=False, spaced=False):
                continue
            if strength == 2 or _random_like(value):
                yield m.span("s")


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


def _flag_spans(text: str) -> Iterator[tuple[int, int]]:
    """Command-line options: `--password X`, `-u user:X`, `-p X`, `redis-cli -a X`, `echo X | login`."""
    for m in _FLAG_RE.finditer(text):
        strength = _name_strength(m.group("name"))
        if not strength:
            continue
        group = _value_group(m)
        value = m.group(group)
        if group == "bare" and re.match(r"\w+=.", value):  # `--secret id=npmrc,src=...`: a spec
            continue
        if not _plausible(value, bare=group == "bare", spaced=True):
            continue
        if strength == 2 or _random_like(value):
            yield m.span(group)
    for start, end in _user_flag_spans(text):
        value = text[start:end]
        if not value.isdigit() and _plausible(value, bare=False, spaced=False):  # `-u 1000:1000` is uid:gid
            yield start, end
    yield from _short_p_spans(text)
    for m in _line_scoped(text):
        if _plausible(m.group("s"), bare=True, spaced=True):
            yield m.span("s")
    for regex in (_NETRC_RE, _GO_DSN_RE):
        for m in regex.finditer(text):
            if _plausible(m.group("s"), bare=True, spaced=True):
                yield m.span("s")


def _line_scoped(text: str) -> Iterator[re.Match[str]]:
    """`-a X` after `redis-cli` on its line; `echo X |` before `--password-stdin` on its line."""
    for cli in _REDIS_CLI_RE.finditer(text):
        line_end = text.find("\n", cli.end())
        line_end = len(text) if line_end < 0 else line_end
        if cli.start() > 0 and _REDIS_CLI_RE.search(text, text.rfind("\n", 0, cli.start()) + 1, cli.start()):
            continue  # this line was read from its first `redis-cli`
        yield from _REDIS_A_RE.finditer(text, cli.end(), line_end)
    start = 0
    while (stdin := text.find("--password-stdin", start)) >= 0:
        line_start = text.rfind("\n", 0, stdin) + 1
        line_end = text.find("\n", stdin)
        line_end = len(text) if line_end < 0 else line_end
        last = text.rfind("--password-stdin", stdin, line_end)  # each line once
        yield from _STDIN_ECHO_RE.finditer(text, max(line_start, start), last)
        start = line_end


def _short_p_spans(text: str) -> Iterator[tuple[int, int]]:
    """`-p X` where this command of the line takes a password: `npm login && mkdir -p dist` is not
    a login. One pass over each line, however long, and however many `-p` it holds."""
    commands: list[re.Match[str]] | None = None  # found only once a `-p` is
    starts: list[int] = []
    scan = _ShellScan(text, 0)
    for m in _SHORT_P_RE.finditer(text):
        group = next(g for g in ("s", "q", "q2") if m.group(g) is not None)
        value = m.group(group)
        if _PORTS_RE.match(value) or not _plausible(value, bare=True, spaced=True):
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


def _aws_secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """AWS secret access keys, which have no prefix: by their label or by following a key id."""
    for m in _AWS_SECRET_LABEL_RE.finditer(text):
        yield m.span("s")
    for m in _AWS_SECRET_LOOSE_RE.finditer(text):
        if _random_base64(m.group("s")):
            yield m.span("s")
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


def find_secrets(text: str) -> list[tuple[int, int]]:
    """Return the sorted, non-overlapping (start, end) spans of secrets in `text`."""
    spans: list[tuple[int, int]] = []
    if "\x1b" in text:
        # Colour codes in captured output (`\x1b[31mghp_...\x1b[0m`) glue onto a token and hide its
        # word boundary: read them as spaces of the same length, so the spans still fit `text`.
        # The text as it is is read too: a terminal title or link (OSC) carries text of its own.
        from errnote.model import ESCAPE_SEQUENCE

        for finder in _FINDERS:
            for start, end in finder(text):
                # Never into an escape sequence: the text after it is not part of the secret.
                cut = min(
                    (k for k in (text.find("\x1b", start, end), text.find("\x07", start, end)) if k >= 0),
                    default=end,
                )
                if cut > start:
                    spans.append((start, cut))
        text = ESCAPE_SEQUENCE.sub(lambda m: " " * len(m.group()), text)
    for finder in _FINDERS:
        spans.extend(finder(text))
    return _merge(spans)


_FINDERS = (_shape_spans, _url_spans, _header_spans, _key_value_spans, _flag_spans, _aws_secret_spans)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sort spans and fuse overlapping ones, so each secret is replaced exactly once."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


#: Masking shortens a text, which can bring a secret's label into the reach of a rule that looks a
#: bounded distance back or ahead; a few passes settle every case met (the fixpoint is what is stored).
_PASSES = 8


def redact(text: str) -> str:
    """Return `text` with every secret value replaced by `[REDACTED]` and nothing else changed.

    Redacting the result again changes nothing: what is stored is already masked for good.
    """
    for _ in range(_PASSES):
        masked = _mask(text)
        if masked == text:
            break
        text = masked
    return text


def _mask(text: str) -> str:
    """One pass: each secret found in `text` replaced by the mask."""
    spans = find_secrets(text)
    if not spans:
        return text
    pieces: list[str] = []
    pos = 0
    for start, end in spans:
        # An escape character glued to the secret would join the mask's `[` into a terminal
        # sequence (`ESC [ R`) and hide the mask's first letters: it goes with the secret.
        if start > pos and text[start - 1] == "\x1b":
            start -= 1
        pieces.append(text[pos:start])
        pieces.append(MASK)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)
