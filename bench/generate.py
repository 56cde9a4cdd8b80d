"""Generate a synthetic errnote notebook of N realistic entries, deterministically from a seed.

Entries are drawn from topic clusters (Rust/cargo, TypeScript, Python, git, Docker, ...), with a
skewed (Zipf-like) topic popularity, so that realistic queries hit a realistic share of entries.
Each entry is about 80 words over its title, body, reason, fix and error text; error texts are
compiler errors, stack traces and tool output with paths, line numbers and versions; about 5% of
entries carry Chinese or Japanese text.

Files are written through the store (`nb.store.create`, one atomic, fsynced file per entry), not
through `nb.add` (which asks git for provenance on every call).

    python bench/generate.py --n 1000 --seed 7 --out /tmp/nb1k
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from errnote.model.entry import (
    DEFAULT_CONFIDENCE,
    Entry,
    EntryType,
    Link,
    Provenance,
    Relation,
    Source,
    Status,
)
from errnote.model.scope import Scope
from errnote.notebook import Notebook
from errnote.storage.layout import ID_LENGTH

#: Fixed "now" of the synthetic history, so the same seed gives the same files on any day.
ANCHOR = datetime(2026, 11, 1, 12, 0, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Topic:
    """One cluster of related knowledge: a tool, its errors, mistakes, fixes and lessons."""

    name: str
    tool: str
    tags: tuple[str, ...]
    globs: tuple[str, ...]
    errors: tuple[str, ...]
    mistakes: tuple[str, ...]
    fixes: tuple[str, ...]
    lessons: tuple[str, ...]
    quirks: tuple[str, ...]
    sentences: tuple[str, ...]


# Placeholders: {path} {line} {col} {mod} {name} {num} {ver} {port} {pkg} {table} {branch}
TOPICS: tuple[Topic, ...] = (
    Topic(
        "rust",
        "cargo",
        ("rust", "cargo", "build", "borrow-checker"),
        ("src/**", "crates/**"),
        (
            "error[E0502]: cannot borrow `self.{name}` as mutable because it is also borrowed as immutable\n"
            "  --> src/{mod}.rs:{line}:{col}",
            "error[E0382]: borrow of moved value: `{name}`\n  --> src/{mod}.rs:{line}:{col}\n"
            "   = note: move occurs because `{name}` has type `Vec<String>`, which does not implement the "
            "`Copy` trait",
            "error: failed to run custom build command for `openssl-sys v{ver}`\n"
            "  Could not find directory of OpenSSL installation",
            "error[E0277]: the trait bound `{name}: Send` is not satisfied\n  --> src/{mod}.rs:{line}:{col}",
            "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', "
            "src/{mod}.rs:{line}:{col}",
            "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: cannot find -lssl",
        ),
        (
            "Ran cargo build --all-features and broke the TLS backends",
            "Cloned the vector inside the hot loop of {mod} to silence the borrow checker",
            "Called unwrap on the config lookup in {mod} and crashed on a missing key",
            "Added tokio with default features to the {mod} crate",
        ),
        (
            "Use make build, not cargo build --all-features",
            "Borrow {name} immutably first, then take the mutable borrow in a separate block",
            "Install libssl-dev and pkg-config before building openssl-sys",
            "Return a Result from {mod} and propagate the error with the question mark operator",
        ),
        (
            "The native-tls and rustls features exclude each other: never enable both",
            "Run cargo clippy --workspace before pushing: CI denies warnings",
            "Keep unsafe blocks in the ffi module only",
        ),
        (
            "cargo test runs doc tests too, and they need the feature flags of the crate",
            "cargo fmt reformats generated files unless they are listed in rustfmt.toml ignore",
        ),
        (
            "The borrow checker rejects the mutable borrow while an iterator over {name} is alive.",
            "The workspace has two TLS backends behind features that cannot be combined.",
            "Release builds use lto and take four minutes, so iterate with debug builds.",
            "The {mod} crate is shared by the server and the cli binary.",
        ),
    ),
    Topic(
        "typescript",
        "tsc",
        ("typescript", "types", "frontend"),
        ("src/**", "web/src/**", "*.ts"),
        (
            "src/components/{Name}.tsx({line},{col}): error TS2345: Argument of type 'string' is not "
            "assignable to parameter of type 'number'.",
            "error TS2307: Cannot find module '@/lib/{mod}' or its corresponding type declarations.",
            "src/{mod}.ts({line},{col}): error TS2532: Object is possibly 'undefined'.",
            "TypeError: Cannot read properties of undefined (reading '{name}')\n"
            "    at {Name} (src/components/{Name}.tsx:{line}:{col})\n    at renderWithHooks "
            "(node_modules/react-dom/cjs/react-dom.development.js:{num}:{col})",
            "error TS7006: Parameter '{name}' implicitly has an 'any' type.",
        ),
        (
            "Cast the API response to any to make tsc pass",
            "Imported from the dist folder of the shared package instead of its source",
            "Disabled strictNullChecks in tsconfig to fix a build error",
        ),
        (
            "Narrow the union with a type guard instead of casting",
            "Import shared code through the @/lib path alias",
            "Add the paths mapping to tsconfig.json and to the vite config",
        ),
        (
            "Never use any in exported types; use unknown and narrow",
            "Run tsc --noEmit in the pre-commit hook, the bundler does not type-check",
        ),
        (
            "vite resolves path aliases from its own config, not from tsconfig paths",
            "tsc --build caches in tsbuildinfo and misses deleted files",
        ),
        (
            "The component {Name} receives props from the router as strings.",
            "The shared types live in packages/types and are built before the web app.",
            "The optional chain hides a missing field in the API response.",
        ),
    ),
    Topic(
        "python",
        "pytest",
        ("python", "tests", "pytest", "imports"),
        ("src/**", "tests/**", "*.py"),
        (
            'Traceback (most recent call last):\n  File "/home/dev/app/src/{mod}/cli.py", line {line}, in '
            "main\n    from {mod}.{name} import load\nModuleNotFoundError: No module named '{mod}.{name}'",
            "E   AssertionError: assert {num} == {line}\ntests/test_{mod}.py:{line}: AssertionError",
            "ImportError: cannot import name '{Name}' from partially initialized module '{mod}' (most likely "
            "due to a circular import)",
            "fixture '{name}' not found\n>       available fixtures: cache, capfd, capsys, monkeypatch, "
            "tmp_path",
            'Traceback (most recent call last):\n  File "src/{mod}/db.py", line {line}, in connect\n'
            "sqlite3.OperationalError: database is locked",
        ),
        (
            "Ran pytest from the tests folder and imported the installed package instead of the source",
            "Patched {mod}.{name} where it is defined instead of where it is used",
            "Used a mutable default argument in the {mod} helper",
        ),
        (
            "Run pytest from the repository root with the package installed editable",
            "Patch the name where it is looked up: {mod}.service.{name}",
            "Break the circular import by moving {Name} into {mod}/types.py",
        ),
        (
            "Tests that touch the database must use the tmp_path fixture, never the real data folder",
            "Pin the test dependencies in requirements-dev.txt",
        ),
        (
            "pytest caches collected modules in __pycache__ and hides renamed test files",
            "pytest -x stops at the first failure but still runs session fixtures teardown",
        ),
        (
            "The package uses a src layout, so tests need the package installed.",
            "The {mod} module is imported at start-up by the command line.",
            "The flaky test depends on dictionary order and the wall clock.",
        ),
    ),
    Topic(
        "node",
        "npm",
        ("node", "npm", "dependencies", "lockfile"),
        ("package.json", "web/**"),
        (
            "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n"
            'npm ERR! peer react@"^{num}" from {pkg}@{ver}',
            'ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is '
            "not up to date with package.json",
            "Error: Cannot find module '{pkg}'\nRequire stack:\n- /home/dev/app/web/src/{mod}.js",
            "npm ERR! code EACCES\nnpm ERR! syscall mkdir\nnpm ERR! path /usr/lib/node_modules/{pkg}",
        ),
        (
            "Ran npm install in a pnpm workspace and created a second lockfile",
            "Upgraded {pkg} to a new major version without reading the changelog",
            "Installed {pkg} globally with sudo",
        ),
        (
            "Use pnpm install --frozen-lockfile in CI",
            "Delete package-lock.json and install with pnpm only",
            "Pin {pkg} to the previous major version until the migration is done",
        ),
        (
            "This repository uses pnpm: never run npm install",
            "Update the lockfile in its own commit",
        ),
        (
            "npm ci deletes node_modules first, so it is slow on big workspaces",
            "pnpm hoists nothing by default: undeclared imports fail at runtime",
        ),
        (
            "The workspace has six packages that share one lockfile.",
            "The build server has no network access to the public registry.",
        ),
    ),
    Topic(
        "git",
        "git",
        ("git", "merge", "history"),
        ("repo",),
        (
            "error: failed to push some refs to 'origin'\nhint: Updates were rejected because the tip of "
            "your "
            "current branch is behind",
            "CONFLICT (content): Merge conflict in src/{mod}.py\nAutomatic merge failed; fix conflicts and "
            "then "
            "commit the result.",
            "fatal: refusing to merge unrelated histories",
            "error: cannot pull with rebase: You have unstaged changes.",
        ),
        (
            "Force-pushed to the shared {branch} branch",
            "Committed the generated files under dist",
            "Rebased a branch that others had already pulled",
        ),
        (
            "Use git push --force-with-lease on your own branches only",
            "Stash or commit local changes before git pull --rebase",
            "Add dist to .gitignore and remove it with git rm --cached",
        ),
        (
            "Never rewrite history on main or release branches",
            "Write commit messages in the imperative mood with a ticket number",
        ),
        (
            "git stash does not include untracked files unless you pass -u",
            "git checkout of a path discards local changes without asking",
        ),
        (
            "The release branch is protected and needs two approvals.",
            "CI runs on every push to a pull request branch.",
        ),
    ),
    Topic(
        "docker",
        "docker",
        ("docker", "containers", "build", "cache"),
        ("Dockerfile", "deploy/**"),
        (
            'ERROR: failed to solve: process "/bin/sh -c pip install -r requirements.txt" did not complete '
            "successfully: exit code: {num}",
            "docker: Error response from daemon: driver failed programming external connectivity: Bind for "
            "0.0.0.0:{port} failed: port is already allocated.",
            "COPY failed: file not found in build context or excluded by .dockerignore: stat {mod}/: file "
            "does "
            "not exist",
            "standard_init_linux.go:{line}: exec user process caused: exec format error",
        ),
        (
            "Copied the whole repository before installing dependencies and lost the layer cache",
            "Built an arm64 image on the laptop and pushed it to the amd64 cluster",
            "Ran the container as root to fix a permission error",
        ),
        (
            "Copy requirements.txt first, install, then copy the source",
            "Build with docker buildx build --platform linux/amd64",
            "Stop the old container that holds port {port} before starting a new one",
        ),
        (
            "Keep the .dockerignore in sync with .gitignore",
            "Images must run as a non-root user",
        ),
        (
            "docker compose v2 reads .env from the project folder, not the current directory",
            "The build cache is invalidated by any change to a copied file's mtime",
        ),
        (
            "The build context is large because node_modules is not ignored.",
            "The production cluster runs amd64 nodes only.",
        ),
    ),
    Topic(
        "database",
        "psql",
        ("database", "migrations", "postgres", "sql"),
        ("migrations/**", "db/**"),
        (
            'psycopg2.errors.UndefinedColumn: column "{name}" of relation "{table}" does not exist\n'
            "LINE {line}: INSERT INTO {table} ({name}, created_at) VALUES",
            "alembic.util.exc.CommandError: Multiple head revisions are present for given argument 'head'",
            "ERROR:  deadlock detected\nDETAIL:  Process {num} waits for ShareLock on transaction {num}",
            'django.db.utils.IntegrityError: duplicate key value violates unique constraint "{table}_pkey"',
        ),
        (
            "Edited a migration that had already been applied in staging",
            "Added a NOT NULL column without a default to the {table} table",
            "Ran the migrations against production from a laptop",
        ),
        (
            "Write a new migration instead of editing an applied one",
            "Add the column as nullable, backfill, then set NOT NULL",
            "Merge the alembic heads with alembic merge heads",
        ),
        (
            "Every schema change needs a migration and a rollback",
            "Big tables are altered in batches outside peak hours",
        ),
        (
            "alembic autogenerate misses changes to server defaults and enum values",
            "psql \\copy runs on the client, COPY runs on the server",
        ),
        (
            "The {table} table has forty million rows in production.",
            "Migrations run automatically when the API container starts.",
        ),
    ),
    Topic(
        "kubernetes",
        "kubectl",
        ("kubernetes", "deploy", "k8s"),
        ("deploy/**", "charts/**"),
        (
            'Error from server (Forbidden): pods is forbidden: User "{name}" cannot list resource "pods" in '
            'API group "" in the namespace "{mod}"',
            "Back-off restarting failed container {mod} in pod {mod}-{num}",
            "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress",
        ),
        (
            "Applied the staging manifests to the production context",
            "Set the memory limit of {mod} below its working set",
        ),
        (
            "Check kubectl config current-context before every apply",
            "Roll back the stuck helm release with helm rollback {mod}",
        ),
        ("Deploy only through the pipeline, never with kubectl apply by hand",),
        ("kubectl logs shows only the current container unless you pass --previous",),
        ("The cluster has separate namespaces per team.", "Helm releases are named after the service."),
    ),
    Topic(
        "go",
        "go",
        ("go", "modules", "build"),
        ("cmd/**", "internal/**", "*.go"),
        (
            "go: {pkg}@v{ver}: missing go.sum entry; to add it:\n\tgo mod download {pkg}",
            "./internal/{mod}/{mod}.go:{line}:{col}: undefined: {Name}",
            "panic: runtime error: invalid memory address or nil pointer dereference\n"
            "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x{num}]",
            "fatal error: all goroutines are asleep - deadlock!",
        ),
        ("Ignored the error returned by {name}.Close", "Shared a map between goroutines without a mutex"),
        ("Run go mod tidy after changing imports", "Guard the cache map with a sync.RWMutex"),
        ("Run go vet and staticcheck before pushing",),
        ("go test caches results: use -count=1 to force a run",),
        ("The service uses internal packages that other modules cannot import.",),
    ),
    Topic(
        "ci",
        "github-actions",
        ("ci", "github-actions", "pipeline"),
        (".github/**",),
        (
            "Error: Process completed with exit code {num}.",
            "Error: The operation was canceled.\n##[error]The job running on runner GitHub Actions {num} has "
            "exceeded the maximum execution time of 360 minutes.",
            "Warning: Node.js 16 actions are deprecated. Please update the following actions: "
            "actions/checkout@v3",
        ),
        ("Pushed a workflow change without testing it on a branch", "Stored a token in the workflow file"),
        ("Use repository secrets for tokens", "Cache the pip and npm downloads with actions/cache"),
        ("CI must stay under ten minutes",),
        ("Scheduled workflows are disabled after sixty days without activity",),
        ("The matrix runs Python 3.10 to 3.13 on Linux and macOS.",),
    ),
    Topic(
        "lint",
        "eslint",
        ("lint", "format", "style"),
        ("src/**", "web/**"),
        (
            "src/{mod}.ts\n  {line}:{col}  error  'React' is defined but never used  no-unused-vars",
            "ruff: F401 [*] `{mod}.{name}` imported but unused\n  --> src/{mod}/__init__.py:{line}:{col}",
            "error: Insert `;` (prettier/prettier) at src/{mod}.js:{line}:{col}",
        ),
        ("Reformatted the whole repository in a feature pull request",),
        (
            "Run the formatter only on the files you changed",
            "Fix the lint errors instead of disabling the rule",
        ),
        ("Formatting changes go in their own pull request",),
        ("eslint and prettier disagree on trailing commas unless eslint-config-prettier is last",),
        ("The lint job runs before the tests and fails fast.",),
    ),
    Topic(
        "network",
        "curl",
        ("network", "ssl", "http", "proxy"),
        ("repo",),
        (
            "curl: (60) SSL certificate problem: unable to get local issuer certificate",
            "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.{mod}.internal', "
            "port={port}): "
            "Max retries exceeded with url: /v1/{name}",
            "ConnectionRefusedError: [Errno 111] Connection refused",
            "HTTP 429 Too Many Requests: rate limit exceeded for {name}",
        ),
        (
            "Disabled certificate verification to get past the proxy",
            "Retried the rate-limited API in a tight loop",
        ),
        ("Point REQUESTS_CA_BUNDLE at the corporate CA file", "Back off exponentially on HTTP 429"),
        ("Never turn off TLS verification, even in scripts",),
        ("The corporate proxy rewrites certificates for every https host",),
        ("The staging API is only reachable through the VPN.",),
    ),
)

PREFERENCES = (
    "Keep pull requests small and focused on one change",
    "Prefer explicit names over abbreviations in public functions",
    "Answer in short paragraphs and show the command first",
    "Use British spelling in user-facing messages",
    "Prefer standard library modules over new dependencies",
    "Write tests before fixing a reported bug",
    "Ask before deleting files outside the working folder",
)
CONVENTIONS = (
    "Commit messages start with the component name",
    "Configuration lives in config/ and is never read from the environment directly",
    "Every public function has a docstring with an example",
    "Feature flags are named with the team prefix",
    "Log messages are lower case without a trailing period",
    "Error codes are documented in docs/errors.md",
)
INSIGHTS = (
    "Most flaky tests in this repository come from shared temporary folders",
    "Build failures after a rebase are usually stale caches, not code",
    "The slowest CI step is dependency installation, not the tests",
    "Timeouts in the integration tests follow the nightly database backup",
)
CJK_TITLES = (
    "数据库迁移失败：先备份再执行",
    "构建缓存失效导致编译变慢",
    "测试依赖系统时间，结果不稳定",
    "不要在主分支上强制推送",
    "代理服务器会替换证书",
    "ビルドキャッシュが無効になる原因",
    "テストは一時フォルダを共有しないこと",
)
CJK_SENTENCES = (
    "这个错误在持续集成环境中经常出现，本地无法复现。",
    "修复方法是先清理缓存，然后重新安装依赖。",
    "用户希望提交信息使用中文说明原因。",
    "この問題はロックファイルが古いときに起きる。",
)
GENERIC = (
    "It happened again during the {branch} release.",
    "The agent lost about twenty minutes on this.",
    "Seen on the laptop and on the CI runners.",
    "The same failure appeared in the {mod} service last month.",
    "Check the logs before retrying anything.",
    "This cost a failed deploy and a rollback.",
    "The user pointed this out twice.",
    "Reproduce it with a clean checkout first.",
)
REASONS = (
    "because the previous attempt broke the build for everyone",
    "since the user had to revert the change by hand",
    "as the error only shows up in CI and wastes a full pipeline run",
    "because it silently corrupts data in the {table} table",
    "since the fix is cheap and the failure is expensive",
    "because the team agreed on it in the last retrospective",
)
NAMES = ("items", "config", "session", "user_id", "cache", "handler", "payload", "request", "buffer", "state")
MODS = ("billing", "auth", "parser", "scheduler", "api", "storage", "worker", "search", "export", "gateway")
PKGS = ("react-router", "lodash", "left-pad", "eslint-plugin-import", "axios", "golang.org/x/net", "zod")
TABLES = ("users", "orders", "invoices", "events", "sessions", "accounts")
BRANCHES = ("main", "develop", "release-2.4", "feature-search", "hotfix-login")
AUTHORS = ("Ana Souza", "Wei Chen", "Priya Raman", "Tom Becker", "Yuki Tanaka", "agent")
TYPE_WEIGHTS: dict[EntryType, float] = {
    EntryType.MISTAKE: 0.22,
    EntryType.CORRECTION: 0.18,
    EntryType.LESSON: 0.22,
    EntryType.CONFIRMATION: 0.06,
    EntryType.PREFERENCE: 0.07,
    EntryType.CONVENTION: 0.08,
    EntryType.TOOL_QUIRK: 0.10,
    EntryType.INSIGHT: 0.07,
}


class Filler:
    """Fills `{placeholders}` in templates with seeded random values."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, template: str) -> str:
        r = self.rng
        name = r.choice(NAMES)
        values = {
            "name": name,
            "Name": "".join(p.capitalize() for p in name.split("_")),
            "mod": r.choice(MODS),
            "line": str(r.randint(3, 900)),
            "col": str(r.randint(1, 80)),
            "num": str(r.randint(2, 99999)),
            "ver": f"{r.randint(0, 4)}.{r.randint(0, 30)}.{r.randint(0, 20)}",
            "port": str(r.choice((3000, 5432, 6379, 8000, 8080, 8443, 9200))),
            "pkg": r.choice(PKGS),
            "table": r.choice(TABLES),
            "branch": r.choice(BRANCHES),
        }
        return template.format(**values)


def _id(rng: random.Random, taken: set[str]) -> str:
    """A seeded id in the format of `errnote.storage.layout.new_id` (ID_LENGTH lower-case hex digits)."""
    while True:
        candidate = f"{rng.getrandbits(ID_LENGTH * 4):0{ID_LENGTH}x}"
        if candidate not in taken:
            taken.add(candidate)
            return candidate


def _words(text: str) -> int:
    return len(text.split())


def _scope(rng: random.Random, topic: Topic) -> list[str]:
    roll = rng.random()
    if roll < 0.35:
        return ["repo"]
    if roll < 0.60:
        glob = rng.choice(topic.globs)
        return [glob if glob == "repo" else f"path:{glob}"]
    if roll < 0.80:
        return [f"tool:{topic.tool}"]
    if roll < 0.90:
        return ["path:src/**", "!path:vendor/**"]
    if roll < 0.95:
        return ["global"]
    return ["tool:git"]


def _title(rng: random.Random, etype: EntryType, topic: Topic, fill: Callable[[str], str]) -> str:
    pick: Callable[[Sequence[str]], str] = rng.choice
    if etype is EntryType.MISTAKE:
        base = fill(pick(topic.mistakes))
    elif etype is EntryType.CORRECTION:
        base = fill(pick(topic.fixes))
    elif etype is EntryType.LESSON:
        base = fill(pick(topic.lessons + topic.fixes))
    elif etype is EntryType.CONFIRMATION:
        base = "Confirmed: " + fill(pick(topic.lessons + topic.fixes)).rstrip(".")
    elif etype is EntryType.PREFERENCE:
        base = pick(PREFERENCES)
    elif etype is EntryType.CONVENTION:
        base = pick(CONVENTIONS + topic.lessons)
    elif etype is EntryType.TOOL_QUIRK:
        base = fill(pick(topic.quirks))
    else:
        base = pick(INSIGHTS + topic.sentences)
        base = fill(base).rstrip(".")
    if rng.random() < 0.4:  # titles repeat across entries in real notebooks, but rarely verbatim
        base += f" in {rng.choice(MODS)}"
    return base


def build_entries(n: int, seed: int) -> list[Entry]:
    """`n` validated entries, the same for the same (n, seed)."""
    rng = random.Random(seed)
    fill = Filler(rng)
    topic_weights = [1.0 / (i + 1) ** 0.8 for i in range(len(TOPICS))]
    types = list(TYPE_WEIGHTS)
    type_weights = list(TYPE_WEIGHTS.values())
    taken: set[str] = set()
    last_mistake: dict[str, str] = {}
    entries: list[Entry] = []
    for _ in range(n):
        topic = rng.choices(TOPICS, topic_weights)[0]
        etype = rng.choices(types, type_weights)[0]
        entry_id = _id(rng, taken)
        cjk = rng.random() < 0.05
        title = rng.choice(CJK_TITLES) if cjk else _title(rng, etype, topic, fill)
        error = ""
        errorish = etype in (EntryType.MISTAKE, EntryType.CORRECTION, EntryType.TOOL_QUIRK)
        if (errorish and rng.random() < 0.75) or rng.random() < 0.15:
            error = fill(rng.choice(topic.errors))
        fix = fill(rng.choice(topic.fixes)) if etype in (EntryType.CORRECTION, EntryType.MISTAKE) else ""
        if etype is EntryType.TOOL_QUIRK and rng.random() < 0.6:
            fix = fill(rng.choice(topic.fixes))
        reason = ""
        if rng.random() < 0.8:
            reason = fill(rng.choice(topic.lessons)).rstrip(".") + ", " + fill(rng.choice(REASONS)) + "."
        sentences: list[str] = []
        budget = 80 - _words(title) - _words(error) - _words(fix) - _words(reason)
        pool = topic.sentences + GENERIC
        while budget > 0 or len(sentences) < 1:
            sentence = fill(rng.choice(pool)) if rng.random() > 0.15 else fill(rng.choice(topic.sentences))
            if cjk and rng.random() < 0.5:
                sentence = rng.choice(CJK_SENTENCES)
                budget -= 8
            sentences.append(sentence)
            budget -= _words(sentence)
            if len(sentences) >= 8:
                break
        body = " ".join(sentences)
        created = ANCHOR - timedelta(seconds=rng.randint(0, 700 * 86400))
        updated = created + timedelta(seconds=rng.randint(0, 30 * 86400)) if rng.random() < 0.2 else created
        updated = min(updated, ANCHOR)
        roll = rng.random()
        status = Status.ACTIVE if roll < 0.92 else Status.SUPERSEDED if roll < 0.97 else Status.RETIRED
        links: tuple[Link, ...] = ()
        if (
            etype in (EntryType.CORRECTION, EntryType.LESSON)
            and topic.name in last_mistake
            and rng.random() < 0.5
        ):
            links = (Link(Relation.CORRECTS, last_mistake[topic.name]),)
        if etype is EntryType.MISTAKE:
            last_mistake[topic.name] = entry_id
        confirmed = rng.randint(1, 6) if rng.random() < 0.15 else 0
        confidence = min(1.0, max(0.05, DEFAULT_CONFIDENCE[etype] + rng.uniform(-0.2, 0.2)))
        tags = rng.sample(topic.tags, k=rng.randint(1, min(3, len(topic.tags))))
        entry = Entry(
            id=entry_id,
            type=etype,
            title=" ".join(title.split()),
            provenance=Provenance(
                created=created,
                updated=updated,
                source=rng.choice((Source.USER, Source.AGENT, Source.AGENT, Source.TOOL)),
                author=rng.choice(AUTHORS),
                commit=f"{rng.getrandbits(160):040x}",
                branch=rng.choice(BRANCHES),
                session=f"sess-{rng.getrandbits(32):08x}" if rng.random() < 0.5 else "",
            ),
            body=body,
            reason=reason,
            scope=Scope.parse(_scope(rng, topic)),
            tags=tuple(dict.fromkeys(tags)),
            tool=topic.tool if rng.random() < 0.7 else "",
            error=error,
            fix=fix,
            confidence=round(confidence, 3),
            status=status,
            links=links,
            pinned=rng.random() < 0.01,
            confirmed=confirmed,
            last_confirmed=created + timedelta(days=rng.randint(1, 60)) if confirmed else None,
        )
        entries.append(entry)
    return entries


def write_notebook(folder: Path, entries: Sequence[Entry]) -> tuple[Notebook, float]:
    """Create a notebook at `folder/.errnote` and write `entries` through the store; return (nb, seconds)."""
    folder.mkdir(parents=True, exist_ok=True)
    nb, _made = Notebook.init(override=folder / ".errnote")
    started = time.perf_counter()
    for entry in entries:
        nb.store.create(entry)
    return nb, time.perf_counter() - started


def main() -> None:
    """Command line: write one synthetic notebook."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="number of entries")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True, help="folder that will hold .errnote/")
    args = parser.parse_args()
    entries = build_entries(args.n, args.seed)
    words = sum(_words(" ".join((e.title, e.body, e.reason, e.fix, e.error))) for e in entries) / max(
        len(entries), 1
    )
    nb, seconds = write_notebook(args.out, entries)
    print(f"wrote {len(entries)} entries ({words:.0f} words each on average) to {nb.root} in {seconds:.2f} s")


if __name__ == "__main__":
    main()
