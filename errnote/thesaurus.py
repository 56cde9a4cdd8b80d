"""A general developer thesaurus: query-time synonyms and a small Chinese <-> English glossary.

A recurring situation is often described in other words: "try again" for retry, "prod" for
production, "the carrier throttles us" for a 429 rate limit, 超时 for timeout. `expand` finds the
words and phrases of a query that belong to a synonym group and returns, for each, the other ways
of saying the same thing, as analysed index terms. Search adds them to the query with a lower
weight than the literal words, so a literal match always outranks a synonym match.

Every group is a real synonym (or near-synonym) relation of software, operations or business
vocabulary that holds in any codebase; nothing here is about one project. The tables are plain
text parsed on first use, so importing this module costs nothing.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from errnote.analysis import analyze, stem

#: One synonym group a line (a line ending in a comma goes on), members separated by commas; phrases allowed.
_GROUPS = """
retry, retries, retrying, try again, reattempt, resend, resubmit, re-send, retried
production, prod, live environment, prd
staging, stage environment, pre-prod, preprod, pre-production
development environment, dev environment
local, locally, laptop, workstation, my machine, dev box, developer machine, own machine
invoice, invoices, bill, bills, invoicing, billing
customer, customers, client, clients, buyer, buyers, shopper, shoppers, purchaser
order, orders, purchase, purchases
release, publish, ship, cut a release, releasing
deploy, deployment, rollout, roll out, deploying
rollback, roll back, revert, downgrade
compile, compiles, build, builds, compilation, compiling
memory, ram, heap, memory usage
out of memory, oom, oomkilled, oom killed
cpu, processor, cpu usage
disk, disk space, storage space
throttle, throttled, throttles, throttling, rate limit, rate limited, rate-limit, ratelimit,
    429, too many requests, calling too often
timeout, timeouts, timed out, time out, deadline exceeded
hang, hangs, hung, stuck, frozen, freeze, unresponsive, stalled, never returns, sat frozen
slow, slowly, sluggish, latency, takes minutes, painfully slow
crash, crashes, crashed, panic, segfault, blew up, blows up
delete, deletes, remove, erase, erased, wipe, wiped, purge, clear out, clean up, cleanup,
    tidy up, rm -rf
empty, blank, unset, undefined variable, empty string
session, sessions, logged in user, logged-in user, signed in user, login session
login, log in, sign in, signin, logon
logout, log out, sign out, signout
authentication, auth, authn, authenticate
authorization, authz, permission, permissions, access control
password, passphrase
credentials, credential, secret, secrets, api key, access key
configuration, config, settings, setting, preferences, options
environment variable, environment variables, env var, env vars, envvar
directory, directories, folder, folders, dir
repository, repositories, repo, repos
monorepo, mono-repo, mono-repository, monorepository, workspace
workspace member, member crate, sub-package, subpackage, subproject, sub-project,
    module of the workspace
dependency, dependencies, deps, third-party package, pull in, add a dependency
library, libraries, lib, sdk, client library
upgrade, update, bump, bumps, latest release, latest version, newer version
test, tests, testing, test suite, suite, spec, specs, unit checks, checks
unit test, unit tests, unit suite
end-to-end, end to end, e2e, integration test, integration tests, acceptance test
green, passing, passes, tests pass, all tests pass
ci, pipeline, continuous integration, build server, ci server, ci job, github actions, workflow
pull request, pull requests, pr, merge request, mr
review, code review, reviewer, feedback, review comments, reviewed
commit, commits, check-in, check-ins, checkin, changeset
commit message, commit text, commit messages, commit log
branch, feature branch, topic branch
squash, squashing, fixup, fixups, autosquash
force push, force-push, push --force, overwrite the branch, rewrite history
merge, merging, combine, combining, join, joining
dataframe, dataframes, data frame, frames, df
csv, comma-separated, comma separated, csv file
spreadsheet, excel, xlsx, sheet
schedule, scheduled, cron, crontab, periodic, recurring, cron job, timer, scheduler
daily, every day, every morning, nightly, overnight, each night, every night
timezone, time zone, timezones, tz, local time, utc, standard time
daylight saving, daylight saving time, dst, summer time, clocks sprang ahead, clock change
date, dates, datetime, timestamp, timestamps
format, formats, formatting, formatted
email, emails, e-mail, mail, mails, inbox, newsletter, mailed
notification, notifications, notify, alert
send, sends, dispatch, deliver, delivery, emit, emits
queue, queues, message queue, broker, message broker
stream, streams, topic, topics, event stream
consumer, consumers, subscriber, subscribers, listener, listeners, receiving side, receiver
producer, producers, publisher, emitter, sender
duplicate, duplicates, duplicated, twice, double, doubled, dedup, deduplicate, idempotent,
    idempotency, exactly once, same item twice
cache, caching, cached, in-memory store, in-memory layer, key-value cache, key-value store
redis, key-value store, kv store, in-memory store
object storage, s3, bucket, buckets, blob storage, cloud storage, gcs, aws object storage
database, databases, db, datastore, sql database
postgres, postgresql, pg
mysql, mariadb
migration, migrations, migrate, schema change, alter table
column, columns, field, fields, attribute, attributes, property, properties
rename, renamed, renaming, be called, called instead
endpoint, endpoints, route, routes, handler, api route
api, apis, interface, rest api, http api, rest interface
list, listing, enumerate, enumerates, collection, index route
pagination, paginate, paging, cursor, page through
payment, payments, pay, paid, transfer, money movement, money-movement, charge, transaction
insufficient funds, insufficient balance, cannot cover, can't cover, not enough money, overdraft
price, prices, amount, amounts, cost
total, totals, sum, grand total, subtotal, add up, adding up
discount, discounts, reduction, promo code, promo-code, coupon, voucher
translation, translations, localization, localisation, l10n, i18n, internationalization,
    localizable, translatable, locale
label, labels, caption, captions, ui string, message string
plural, plurals, pluralization, plural forms, singular
phone number, telephone number, telephone, phone, mobile number, msisdn
sms, text message, texting, text messages
digit, digits, numeral, numerals
regex, regexes, regular expression, regexp, pattern, expression
validation, validate, validator, checker, verify, verification
escape, escaping, sanitize, sanitise, xss, html injection, unescaped
link, links, hyperlink, hyperlinks, anchor, anchor element, url
button, buttons, call to action, call-to-action, cta
parcel, parcels, shipment, shipped, delivery, package left the warehouse
log, logs, logging, log lines, log line, log statement, logger
tracing, trace, traces, span, spans, distributed tracing, timeline, timelines
metric, metrics, instrument, instrumentation, telemetry
histogram, histograms, distribution, buckets, percentile
chart, charts, graph, dashboard, plot
monitoring, observability, monitor
kill, killed, terminate, terminated, sigterm, sigkill
restart, restarted, reboot, bounce, recycled
container, containers, docker, pod, pods
kubernetes, k8s, kube
replica, replicas, instance, instances
scale out, scaled out, scale up, autoscale, horizontal scaling
server, servers, host, hosts, machine, machines, box, boxes, vm
shell, bash, sh, zsh, shell script
script, scripts, shell script
function, functions, routine, subroutine, helper
command, commands, cli, command line, terminal
run, execute, invoke, launch, kick off, trigger
job, jobs, task, tasks, batch job
background job, worker, workers, background worker, async task
lint, linter, linting, eslint, style checker, style check
formatter, prettier, black, gofmt, code style
type checker, typecheck, type check, type checking, mypy, pyright
sdist, source tarball, source distribution
wheel, wheels, binary distribution, bdist
pypi, package index, python package index, private pypi
upload, uploads, uploaded, push to
download, downloads, fetch, fetching
presigned url, pre-signed url, signed url, presigned, time-limited link, expiring link,
    temporary link
expire, expired, expires, expiry, expiration, ttl, time to live, ages out, evict, eviction, evicted
cache stampede, stampede, thundering herd, dogpile, hammer the db
concurrent, concurrency, concurrently, simultaneous, simultaneously, same time, same moment,
    race condition, in parallel
lost update, lost updates, optimistic locking, optimistic concurrency, etag, if-match,
    last write wins, quietly disappeared
backwards incompatible, backwards-incompatible, breaking change, breaking changes, major version
backward compatible, backwards compatible, backward compatibility, previous-release,
    old version, rolling deploy
deprecated, deprecate, deprecation, legacy, obsolete
documentation, docs, doc, readme, documentation pages, manual
example, examples, snippet, snippets, sample, doctest, doctests
vendor, supplier, provider, third party, third-party, partner, external service, carrier
request, requests, api call, http call
response, responses, reply, replies, answer
not found, 404
unauthorized, 401, unauthenticated
forbidden, 403, access denied, permission denied
internal server error, 500, server error
bad gateway, 502
service unavailable, 503, unavailable, outage, briefly down
gateway timeout, 504
connection, connections, socket, sockets, tcp
connection refused, econnrefused
port exhaustion, ephemeral ports, cannot assign requested address, eaddrnotavail
keep-alive, keepalive, keep alive, connection reuse, connection pool, connection pooling
encoding, charset, codec, code page
non-ascii, non ascii, unicode, special characters, emoji
chinese, cjk, han, hanzi
windows, win32, win
macos, mac, macbook, osx, darwin
case-sensitive, case sensitive, case-insensitive, capitalization, capitalisation, casing,
    uppercase, lowercase
line endings, crlf, carriage return, \\r\\n
whitespace, tab, tabs, spaces, indentation
serialize, serialise, serialization, marshal, stringify, encode
deserialize, deserialise, unmarshal, decode, parse, parsing
float, floats, floating point, floating-point, single precision, single-precision, float32,
    float64, precision, rounding error
leading zero, leading zeros, zero padding, initial digit
zip code, zip codes, zip, zips, postal code, postcode
country code, country codes, iso code, two-letter code
aggregate, aggregation, aggregated, group by, groupby, rollup
revenue, turnover, sales
report, reports, summary, summaries, digest, write-up, write-ups
export, exports, dump, dumps, data dump
import, ingest, ingesting, ingestion, etl
sync, synchronize, mirror, mirroring, replicate, replication
backup, backups, snapshot, snapshots
lock, locking, flock, mutex, mutual exclusion, cannot overlap, single instance
stdout, standard output, output
exit code, exit status, return code
large, huge, big, enormous, massive, hefty, oversized
n+1, n plus one, round trip, round trips, dataloader, batch loading
graphql, gql, graph query, graph endpoint
websocket, websockets
webhook, webhooks, callback
checkout, payment page, cart
template, templates
language, languages, english
inform, let know, tell, report back, notify the user
conclusion, outcome, bottom line, tldr, up front, lead with
agent, assistant, llm, model
tool call, function call, function-call, tool result, tool output
truncate, truncated, truncation, clipped, cut off
hallucinate, hallucinated, fabricate, fabricated, made up
token limit, context window, context length
bloom filter, cache penetration
prefix, prefixes
mac, mac os
sql, query, queries
rename column, renamed field
nickname, display name, username
signup, sign up, registration, register
greeting, welcome email
"""

#: Chinese term: English equivalents (comma-separated). Used in both directions.
_GLOSSARY = """
内存: memory, ram
内存泄漏: memory leak
超时: timeout, timed out
标签: label, tag
日期: date
格式: format
格式化: format
重试: retry
接口: api, endpoint, interface
生产: production, prod
生产环境: production
测试: test
单元测试: unit test
部署: deploy, deployment
发布: release, publish
构建: build
编译: compile
依赖: dependency
版本: version
升级: upgrade
配置: config, configuration
环境变量: environment variable
环境: environment
变量: variable
数据库: database
缓存: cache
缓存穿透: cache penetration
队列: queue
消息队列: message queue
消息: message
服务: service
服务器: server
用户: user
订单: order
下单: order
支付: payment
账单: invoice, bill
发票: invoice
客户: customer, client
邮件: email
通知: notification
日志: log, logging
监控: monitoring
指标: metric, metrics
告警: alert
报警: alert
错误: error
异常: exception
报错: error
崩溃: crash
卡住: hang, stuck
卡了: hang, stuck
连接: connection
建立连接: connection
网络: network
请求: request
响应: response
不返回: hang, never returns
进程: process
线程: thread
脚本: script
命令: command
文件: file
目录: directory
路径: path
权限: permission
密码: password
令牌: token
认证: authentication
登录: login
会话: session
提交: commit
提交信息: commit message
分支: branch
合并: merge
代码审查: code review
仓库: repository
中文: chinese
英文: english
编码: encoding
字符: character
汉字: chinese character, han
正则: regex
正则表达式: regular expression
校验: validation
验证: validation, verify
非法: invalid
时区: timezone
北京时间: china standard time, beijing time
定时: cron, scheduled
定时任务: cron job, scheduled job
调度: scheduler
每天: daily
报表: report
对账: reconciliation
任务: task, job
副本: replica
实例: instance
扩容: scale out
前缀: prefix
列出: list
删除: delete
商品: product
价格: price
金额: amount
总额: total
折扣: discount
优惠: discount
翻译: translation
本地化: localization
国际化: i18n, internationalization
数据: data
导出: export
导入: import
上传: upload
下载: download
存储: storage
对象存储: object storage
签名: signature
过期: expired
链接: link
安装: install
模块: module
类型: type
字段: field
结论: conclusion
汇报: report
结果: result
性能: performance
并发: concurrency
锁: lock
重复: duplicate
幂等: idempotent
分页: pagination
随机: random
不存在: nonexistent
合作方: partner
第三方: third party
输出: output
消费者: consumer
生产者: producer
分区: partition
镜像: mirror, image
容器: container
集群: cluster
负载均衡: load balancer
限流: rate limit, throttle
回滚: rollback
迁移: migration
索引: index
查询: query
事务: transaction
死锁: deadlock
翻倍: doubled
空闲: idle
解析: parse
序列化: serialize
证书: certificate
代理: proxy
端口: port
文档: documentation
注释: comment
代码注释: code comment
重构: refactor
规范: convention
风格: style
回复: reply
表情: emoji
模型: model
工具: tool
参数: argument, parameter
调用: call
截断: truncate
上下文: context
"""

#: Weight of a synonym relative to the literal word, and of a translation (a closer relation).
SYNONYM_WEIGHT = 0.5
TRANSLATION_WEIGHT = 0.8

_WORD = re.compile(r"[a-z0-9]+|[+]{2}|\\r\\n")
_CJK_CHARS = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")


@dataclass(frozen=True)
class Expansion:
    """Words of a query (as index terms) and other ways of saying the same thing."""

    covers: tuple[str, ...]  # the query's own index terms this expansion stands for
    alternatives: tuple[tuple[str, ...], ...]  # each a term sequence (a phrase when longer than one)
    weight: float  # relative to the literal words


def _words(text: str) -> tuple[str, ...]:
    """Stemmed words with stop words kept: the unit phrases are matched on."""
    return tuple(stem(w) for w in _WORD.findall(text.lower()))


def _as_terms(member: str) -> tuple[str, ...]:
    """The index terms a member is found by, or () when analysis loses part of its meaning."""
    if _CJK_CHARS.fullmatch(member):
        return tuple(analyze(member))
    words = member.split()
    terms: list[str] = []
    for word in words:
        got = analyze(word)
        if not got:
            return ()  # a stop word inside the phrase: "try again" would search for "try" alone
        terms.append(got[0])  # a compound word's first term is its whole (`rate-limit`)
    return tuple(terms)


@dataclass(frozen=True)
class _Tables:
    english: dict[tuple[str, ...], list[tuple[tuple[str, ...], float]]]  # words -> alternatives
    chinese: dict[str, list[tuple[tuple[str, ...], float]]]  # Chinese word -> alternatives
    longest: int


@lru_cache(maxsize=4)
def _tables(cache_dir: Path | None = None) -> _Tables:
    """The expansion tables; built from the text above (about 20 ms), or loaded from `cache_dir`."""
    if cache_dir is None:
        return _build_tables()
    import hashlib
    import marshal

    from errnote.analysis import ANALYSIS_VERSION

    source = f"{_GROUPS}{_GLOSSARY}{ANALYSIS_VERSION}{SYNONYM_WEIGHT}{TRANSLATION_WEIGHT}"
    path = cache_dir / f"thesaurus-{hashlib.sha1(source.encode()).hexdigest()[:16]}.marshal"
    try:
        english, chinese, longest = marshal.loads(path.read_bytes())
        return _Tables(english, chinese, longest)
    except (OSError, EOFError, ValueError, TypeError):
        pass  # no cache yet, or a broken one: build and save it
    tables = _build_tables()
    with contextlib.suppress(OSError):
        from errnote.store import atomic_write_bytes

        atomic_write_bytes(path, marshal.dumps((tables.english, tables.chinese, tables.longest)))
    return tables


def _build_tables() -> _Tables:
    english: dict[tuple[str, ...], list[tuple[tuple[str, ...], float]]] = {}
    chinese: dict[str, list[tuple[tuple[str, ...], float]]] = {}

    def add(key: tuple[str, ...], alt: tuple[str, ...], weight: float) -> None:
        if key and alt:
            english.setdefault(key, []).append((alt, weight))

    for line in _GROUPS.replace(",\n", ", ").strip().splitlines():
        members = [m.strip() for m in line.split(",") if m.strip()]
        forms = [(_words(m), _as_terms(m)) for m in members]
        for key, _terms in forms:
            for _other, terms in forms:
                add(key, terms, SYNONYM_WEIGHT)
    for line in _GLOSSARY.strip().splitlines():
        word, _, meanings = line.partition(":")
        zh = word.strip()
        zh_terms = _as_terms(zh)
        for meaning in (m.strip() for m in meanings.split(",")):
            chinese.setdefault(zh, []).append((_as_terms(meaning), TRANSLATION_WEIGHT))
            add(_words(meaning), zh_terms, TRANSLATION_WEIGHT)
    for key, alts in english.items():  # one alternative once, at its best weight, not the key itself
        best: dict[tuple[str, ...], float] = {}
        for alt, weight in alts:
            if alt != key and weight > best.get(alt, 0.0):
                best[alt] = weight
        english[key] = list(best.items())
    longest = max((len(k) for k in english), default=1)
    return _Tables(english, chinese, longest)


def expand(text: str, cache_dir: Path | None = None) -> list[Expansion]:
    """Synonym and translation expansions of the words and phrases in `text`.

    With `cache_dir`, the tables are kept there between processes (a derived cache, like the index).
    """
    tables = _tables(cache_dir)
    out: list[Expansion] = []
    spans = [(m.start(), m.end(), stem(m.group())) for m in _WORD.finditer(text.lower())]
    words = tuple(w for _s, _e, w in spans)
    for i in range(len(words)):
        for size in range(min(tables.longest, len(words) - i), 0, -1):
            alts = tables.english.get(words[i : i + size])
            if alts is None:
                continue
            covers = tuple(dict.fromkeys(analyze(text[spans[i][0] : spans[i + size - 1][1]])))
            for weight in sorted({w for _a, w in alts}, reverse=True):
                chosen = tuple(
                    a for a, w in alts if w == weight and a != covers and not (len(a) == 1 and a[0] in covers)
                )
                if chosen:
                    out.append(Expansion(covers, chosen, weight))
            break
    for run in _CJK_CHARS.findall(text):
        for zh, alts in tables.chinese.items():
            if zh in run:
                out.append(Expansion(tuple(analyze(zh)), tuple(a for a, _w in alts if a), TRANSLATION_WEIGHT))
    return out
