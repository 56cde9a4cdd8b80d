"""A general developer thesaurus: query-time synonyms and a Chinese/Japanese <-> English glossary.

The same thing has several names: "prod" for production, "429" for a rate limit, "env var" for
an environment variable, 超时 for timeout. `expand` finds the
words and phrases of a query that belong to a synonym group and returns, for each, the other ways
of saying the same thing, as analysed index terms. Search adds them to the query with a lower
weight than the literal words, so a literal match always outranks a synonym match.

Every group is a real synonym (or near-synonym) relation of software, operations or business
vocabulary that holds in any codebase: abbreviations, aliases, inflections and fixed technical
terms, never a colloquial description of one situation (saying a thing in other words is the
semantic model's work, `errnote.semantic`), and never a phrase taken from an evaluation query.
The tables are plain text parsed on first use, so importing this module costs nothing.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from errnote.search.analysis import analyze, canonical, stem

#: One synonym group a line (a line ending in a comma goes on), members separated by commas; phrases allowed.
_GROUPS = """
retry, retries, retrying, reattempt, resend, resubmit, re-send, retried
production, prod, live environment, prd
staging, stage environment, pre-prod, preprod, pre-production
development environment, dev environment
local, locally, laptop, workstation, my machine, dev box, developer machine, own machine
invoice, invoices, bill, bills, invoicing, billing
customer, customers, client, clients, buyer, buyers, shopper, shoppers, purchaser
order, orders, purchase, purchases
shipment, shipments, shipping, shipped, parcel, parcels, dispatched, out for delivery, freight,
    courier
release, publish, ship, cut a release, releasing
deploy, deployment, rollout, roll out, deploying
rollback, roll back, revert, downgrade
compile, compiles, build, builds, compilation, compiling
memory, ram, heap, memory usage
out of memory, oom, oomkilled, oom killed
cpu, processor, cpu usage
disk, disk space, storage space
throttle, throttled, throttles, throttling, rate limit, rate limited, rate-limit, ratelimit, 429,
    too many requests
timeout, timeouts, timed out, time out, deadline exceeded
hang, hangs, hung, stuck, frozen, freeze, unresponsive, stalled, never returns
slow, slowly, sluggish, latency, takes minutes, painfully slow
crash, crashes, crashed, panic, segfault, blows up
delete, deletes, remove, erase, erased, wipe, wiped, purge, clear out, clean up, cleanup, tidy up,
    rm -rf
empty, blank, unset, undefined variable, empty string
session, sessions, logged in user, signed in user, login session
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
member crate, sub-package, subpackage, subproject, sub-project, module of the workspace
dependency, dependencies, deps, third-party package, pull in, add a dependency
library, libraries, lib, sdk, client library
upgrade, update, bump, bumps, newer version
test, tests, testing, test suite, suite, spec, specs, checks
end-to-end, end to end, e2e, integration test, integration tests, acceptance test
green, passing, passes, tests pass, all tests pass
ci, pipeline, continuous integration, ci server, ci job, github actions, workflow
pull request, pull requests, pr, merge request, mr
review, code review, reviewer, feedback, review comments, reviewed
commit, commits, check-in, check-ins, checkin, changeset
commit message, commit messages, commit log
squash, squashing, fixup, fixups, autosquash
force push, force-push, push --force, rewrite history
merge, merging, combine, combining, join, joining
dataframe, dataframes, data frame, frames, df
csv, comma-separated, comma separated, csv file
spreadsheet, excel, xlsx, sheet
schedule, scheduled, cron, crontab, periodic, recurring, cron job, timer, scheduler
daily, every day, nightly, overnight, each night, every night
timezone, time zone, timezones, tz, local time, utc
daylight saving, daylight saving time, dst, summer time, clock change
date, dates, datetime, timestamp, timestamps
format, formats, formatting, formatted
email, emails, e-mail, mail, mails, inbox, newsletter, mailed
notification, notifications, notify, alert
send, sends, dispatch, deliver, delivery, emit, emits
queue, queues, message queue, broker, message broker
stream, streams, topic, topics, event stream
consumer, consumers, subscriber, subscribers, listener, listeners, receiver
producer, producers, publisher, emitter, sender
duplicate, duplicates, duplicated, twice, double, doubled, dedup, deduplicate, idempotent,
    idempotency, exactly once
cache, caching, cached, key-value store
redis, key-value store, kv store
s3, bucket, buckets, blob storage, gcs
database, databases, db, datastore, sql database
postgres, postgresql, pg
go, golang, go language
python, python3, cpython
rust, rustlang, rust-lang
mysql, mariadb
migration, migrations, migrate, schema change, alter table
column, columns, field, fields, attribute, attributes, property, properties
rename, renamed, renaming, called instead
endpoint, endpoints, route, routes, handler, api route
api, apis, interface, rest api, http api
list, listing, enumerate, enumerates, collection, index route
pagination, paginate, paging, cursor, page through
payment, payments, pay, paid, transfer, money movement, money-movement, charge, transaction
insufficient funds, insufficient balance, cannot cover, not enough money, overdraft
price, prices, amount, amounts, cost
total, totals, sum, subtotal, add up
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
link, links, hyperlink, hyperlinks, anchor, url
button, buttons, call to action, call-to-action, cta
parcel, parcels, shipment, shipped, delivery
log, logs, logging, log line, log statement, logger
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
scale out, scale up, autoscale, horizontal scaling
server, servers, host, hosts, machine, machines, box, boxes, vm
shell, bash, sh, zsh, shell script
script, scripts, shell script
function, functions, routine, subroutine, helper
command, commands, cli, command line, terminal
run, execute, invoke, launch, trigger
job, jobs, task, tasks, batch job
background job, worker, workers, background worker, async task
lint, linter, linting, eslint, style check
formatter, prettier, black, gofmt, code style
type checker, typecheck, type check, type checking, mypy, pyright
sdist, source distribution
wheel, wheels, bdist
pypi, package index, python package index
upload, uploads, uploaded, push to
download, downloads, fetch, fetching
presigned url, pre-signed url, signed url, presigned, time-limited link, expiring link,
    temporary link
expire, expired, expires, expiry, expiration, ttl, time to live, evict, eviction, evicted
cache stampede, stampede, thundering herd, dogpile
concurrent, concurrency, concurrently, simultaneous, simultaneously, race condition, in parallel
lost update, lost updates, optimistic locking, optimistic concurrency, etag, if-match,
    last write wins
backwards incompatible, backwards-incompatible, breaking change, breaking changes, major version
backward compatible, backwards compatible, backward compatibility, previous-release, rolling deploy
deprecated, deprecate, deprecation, legacy, obsolete
documentation, docs, doc, readme, manual
example, examples, snippet, snippets, sample, doctest, doctests
vendor, supplier, provider, third party, third-party, partner, external service, carrier
request, requests, http call
response, responses, reply, replies, answer
not found, 404
unauthorized, 401, unauthenticated
forbidden, 403, access denied
internal server error, 500
bad gateway, 502
503, unavailable, outage, briefly down
gateway timeout, 504
connection, connections, socket, sockets, tcp
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
leading zero, leading zeros, zero padding
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
n+1, n plus one, round trips, dataloader, batch loading
graphql, gql
websocket, websockets
webhook, webhooks, callback
checkout, cart
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
iphone, ipad, ios app, ios
android app, android, android device, android phone
mobile app, native app, mobile application
picture, image, photo, photograph, img
screenshot, screen capture, screengrab, screen shot
flaky, intermittent, sporadic, flakey, nondeterministic, non-deterministic, flake, flakes
stale, outdated, out of date, out-of-date, not up to date
on call, on-call, oncall, pager, pagerduty, on-call rotation
app store, apple app store, ios app store
google play, google play store, play console
push notification, push notifications, apns, fcm, remote notification
emulator, simulator, android emulator, ios simulator, avd
real device, physical device, on-device, hardware device
react native, react-native
react, reactjs, react.js
javascript, js, ecmascript, es6
typescript, tsx, tsc, typescript compiler
nodejs, node.js, node js
css, stylesheet, stylesheets, style sheet
viewport, screen size, screen width, window width
mobile-friendly, mobile friendly, responsive design, responsive layout
dark mode, dark theme, night mode
font, fonts, typeface, web font, webfont
colour, color, colours, colors
center, centre, centered, centred, centering, centring
behaviour, behavior, behaviours, behaviors
cancelled, canceled, cancellation, cancel, cancelling, canceling
optimise, optimize, optimisation, optimization, optimised, optimized
analyse, analyze, analysis, analysed, analyzed
initialise, initialize, initialisation, initialization, init
licence, license, licensing, licences, licenses
catalogue, catalog, catalogues, catalogs
grey, gray, greyed out, grayed out
dialog, dialogue, modal, modal dialog, popup, pop-up
tooltip, tooltips, hover text, tool tip
dropdown, drop-down, drop down, select box, combo box, combobox
checkbox, check box, tick box, tickbox, checkboxes
radio button, radio buttons, option button
text field, text box, textbox, input field, text input, input box
sidebar, side bar, side panel, side menu
navbar, nav bar, navigation bar, header bar
toast, snackbar, toast message, toast notification
spinner, loading indicator, loading spinner, throbber, loader
placeholder, placeholder text, hint text
lazy loading, lazy load, lazy-load, lazily loaded, load on demand, deferred loading
browser, web browser, browsers
chrome, google chrome, chromium
safari, mobile safari, webkit
firefox, mozilla firefox, gecko
devtools, dev tools, developer tools, chrome devtools, web inspector
cookie, cookies, browser cookie, http cookie
local storage, localstorage, web storage, sessionstorage, session storage
cors, cross-origin, cross origin, same-origin policy, same origin policy
spa, single page app, single page application, single-page application
ssr, server-side rendering, server side rendering, server-rendered, server rendered
bundler, webpack, vite, esbuild, module bundler
minify, minified, minification, uglify, uglified
source map, sourcemap, source maps, sourcemaps
component, components, widget, widgets, ui component
rerender, re-render, re-rendering, rerendering, render again
layout shift, cumulative layout shift, content jumping, page jumps
accessibility, a11y, accessible, screen reader support
click, tap, tapped, clicked, clicks, taps
build failure, failed build, broken build, build broke, build is red, build failed
failing tests, tests fail, test failure, broken tests, tests failing
artifact, artifacts, artefact, artefacts, build output
changelog, change log, release notes, what's new
semver, semantic versioning, semantic version, version number
hotfix, hot fix, hot-fix, emergency fix, patch release
cherry-pick, cherry pick, cherry-picked, backport, backported
merge conflict, merge conflicts, conflict, conflicts, conflicting changes
main branch, master, trunk, default branch, master branch
gitignore, .gitignore, ignore file, git ignore
diff, diffs, patch, patches, delta
approve, approved, approval, lgtm, sign-off, signoff, sign off
wip, work in progress, draft pr, draft pull request, not ready for review
ticket, tickets, jira ticket, jira issue, github issue, work item
bug, bugs, defect, defects, glitch, glitches
regression, regressions, regressed, used to work, stopped working
estimate, estimates, estimation, story points, effort estimate, ballpark
deadline, deadlines, due date, eta, target date
standup, stand-up, daily standup, daily scrum, daily sync
postmortem, post-mortem, incident review, root cause analysis, rca
root cause, underlying cause, real cause, actual cause
workaround, work around, workarounds, stopgap, band-aid, quick fix, hack
tech debt, technical debt, cruft
refactor, refactoring, refactored, restructure, rework, reworked
dead code, unused code, unreachable code, unused function
boilerplate, scaffolding, scaffold, scaffolded, starter code
tech lead, team lead, lead developer, lead engineer
status update, progress update, status report, weekly update
blocker, blockers, blocked, blocking issue, impediment
product owner, product manager, product lead
concise, brief, succinct, terse, to the point
wordy, long-winded, rambling, overly long
handoff, hand-off, handover, hand over, knowledge transfer
onboarding, onboard, ramp up, new hire, new joiner
proof of concept, poc, prototype, prototypes, spike solution
acceptance criteria, requirements doc, requirements document, product requirements
design doc, design document, rfc, technical design, tech spec, design proposal
bugfix, bug fix, bug-fix, bug fixes, bugfixes
repro, reproduction, minimal reproduction, reproducer, steps to reproduce, mre, minimal example
cannot reproduce, can't reproduce, unable to reproduce, cannot repro, can't repro, works for me
works on my machine, works locally, only fails in ci, passes locally
mongo, mongodb, mongoose
dynamodb, dynamo, dynamo db
elasticsearch, elastic search, opensearch
database index, db index, table index, sql index, db indexes
primary key, primary keys, pk, primary-key
foreign key, foreign keys, fk, foreign-key, fk constraint
db table, database table, sql table, db tables
row, rows, db row, db record, database record, table row
null, nil, null value, nullptr, nulls, nullable
null pointer, nullpointerexception, npe, null reference, nil pointer dereference
deadlock, deadlocks, deadlocked, lock wait timeout, lock contention
orm, object-relational mapper, object relational mapping, sqlalchemy, active record
upsert, upserts, insert or update, on conflict do update, merge into
query plan, execution plan, explain plan, explain analyze
slow query, slow queries, slow query log, long-running query
read replica, read replicas, read-replica, follower database, read-only replica
shard, shards, sharding, sharded, horizontal partitioning
connection string, dsn, database url, db url, jdbc url
fixture, fixtures, test data, seed data, test fixtures
schema, schemas, data model, db schema, database schema
nosql, document store, document database, non-relational
cache hit, cache hits, hit rate, hit ratio
cache miss, cache misses, miss rate
cache invalidation, invalidate, invalidated, bust the cache, cache busting, cache-busting
pub/sub, pubsub, publish-subscribe, publish/subscribe, fan-out, fanout
dead letter queue, dead-letter queue, dlq, dead letter, poison message, poison pill
consumer lag, queue depth, queue backlog, queue lag, messages piling up
ack, acknowledge, acknowledgement, acknowledgment, acked, acks
committed offset, consumer offset, kafka offset, consumer position
at least once, at-least-once, at-least-once delivery
http header, http headers, request header, request headers, response header
status code, http status, http status code, response code, status codes
bad request, 400, malformed request
redirect, redirects, redirected, redirection, 301, 302
too many redirects, redirect loop, err_too_many_redirects, infinite redirect
json, json payload, json body, json object
payload, post body, message body, request payload
query string, query parameter, query parameters, query param, query params, querystring,
    url parameter
path parameter, path param, route param, route parameter, url segment
tls, ssl, ssl/tls, tls handshake, ssl handshake
certificate, certificates, cert, certs, tls certificate, x509
dns, name resolution, dns resolution, dns lookup, domain name system
hostname, host name, fqdn, domain name, host names, hostnames
load balancer, load balancers, lb, alb, elb, nlb
proxy, proxies, proxy server, forward proxy, http proxy
nginx, haproxy, envoy
cdn, content delivery network, cloudfront, fastly, akamai, edge cache
response times, time to first byte, ttfb, request latency
throughput, requests per second, rps, qps, req/s, queries per second
uptime, availability, nines, high availability
health check, healthcheck, health checks, health endpoint, healthz, health probe
liveness probe, liveness check, liveness
readiness probe, readiness check, readiness
heartbeat, heartbeats, keep-alive ping, heartbeat interval
openapi, swagger, openapi spec, api spec, swagger spec, api schema
access token, access tokens, bearer token, auth token, oauth token
jwt, jwts, json web token, json web tokens
refresh token, refresh tokens, token refresh
oauth, oauth2, oauth 2.0, openid connect, oidc
sso, single sign-on, single sign on, saml, saml sso
2fa, mfa, two-factor, two-factor authentication, two factor authentication,
    multi-factor authentication, 2-step verification
one-time password, otp, verification code, one time code, totp, one-time code
rbac, role-based access control, role based access control, roles and permissions
csrf, xsrf, cross-site request forgery, csrf token
sql injection, sqli, injection attack
vulnerability, vulnerabilities, cve, security hole, security flaw, vuln, vulns
encrypt, encryption, encrypted, ciphertext, encrypting
decrypt, decryption, decrypted, decrypting
checksum, checksums, hash sum, md5sum, sha256sum, integrity check
password hash, hashed password, bcrypt, argon2, password hashing
secrets manager, secret manager, vault, key vault, secret store, secrets store
allowlist, whitelist, allow list, allow-list, safelist, whitelisted
denylist, blacklist, deny list, deny-list, blocklist, block list, blacklisted
key rotation, rotate credentials, credential rotation, rotate the key, rotate keys
pii, personal data, personally identifiable information, personal information
gdpr, data protection, right to be forgotten
audit log, audit logs, audit trail, audit logging
impersonate, impersonation, act as user, log in as user
aws, amazon web services
gcp, google cloud, google cloud platform
azure, microsoft azure
ec2, amazon ec2, ec2 instances
serverless function, serverless functions, aws lambda, cloud function, cloud functions,
    azure functions
serverless, faas, functions as a service
availability zone, availability zones, az
infrastructure as code, iac, terraform, cloudformation, pulumi
docker image, container image, docker images, container images, oci image
container registry, docker registry, ecr, gcr, image registry
worker node, worker nodes, k8s node, cluster node, kubernetes node
cluster, clusters, k8s cluster
crashloopbackoff, crash loop, crashloop, crash looping, crash-looping, restart loop
persistent volume, persistent volumes, pvc, persistent volume claim, persistent storage
hpa, horizontal pod autoscaler, pod autoscaler, cluster autoscaler
memory limit, memory limits, mem limit, resource limits, resource quota
cold start, cold starts, cold boot, spin-up time, startup latency
provision, provisioning, provisioned, spin up, spun up, spinning up
decommission, decommissioned, deprovision, tear down, turn off for good
ephemeral environment, preview environment, review app, preview deploy, preview deployment
blue-green, blue/green, blue green deployment, blue-green deployment
canary, canary release, canary deploy, canary deployment, canaries
feature flag, feature flags, feature toggle, feature toggles, feature switch, launchdarkly
downtime, down time, planned downtime, maintenance window
incident, incidents, sev1, sev-1, major incident, p1 incident
runbook, runbooks, playbook, run book, standard operating procedure
alarm, alarms, alert rule, alert rules, alerting rule, alert condition
error rate, failure rate, error ratio, error percentage
log level, log levels, loglevel, verbosity, log verbosity
debug log, debug logging, verbose logging, debug output, debug logs
stack trace, stacktrace, stack traces, traceback, backtrace, call stack
throw, throws, thrown, rethrow, rethrown, throwing
exception, exceptions, uncaught exception, unhandled exception
error message, error messages, error text, error string
sentry, error tracker, error tracking, crash reporter, crash reporting, crashlytics, bugsnag
apm, application performance monitoring, datadog, new relic, dynatrace
opentelemetry, otel, open telemetry
structured logging, json logs, structured logs, json logging
correlation id, trace id, x-request-id, correlation ids
log aggregation, elk, kibana, splunk, log search, log explorer
profiler, profiling, flame graph, flamegraph, cpu profile, pprof
memory leak, memory leaks, leaking memory, leaks memory, memory keeps growing
garbage collection, garbage collector, gc pause, gc pauses
bottleneck, bottlenecks, choke point, chokepoint
benchmark, benchmarks, benchmarking, microbenchmark, microbenchmarks
load test, load testing, stress test, stress testing, performance test, perf test
traffic spike, surge, traffic burst, peak load, traffic surge, load spike
mock, mocks, mocked, mocking, stub, stubs, test double, fake
coverage, code coverage, test coverage, coverage report
assertion, assert, asserts, assertions, assertionerror
smoke test, smoke tests, sanity check, sanity test, sanity checks
qa, quality assurance, qa team, tester, testers
regression test, regression tests, regression suite, regression testing
browser test, browser tests, ui test, ui tests, selenium, playwright, cypress
sandbox, sandbox environment, test mode, sandbox account
skipped test, skipped tests, disabled test, disabled tests, xfail, xfailed
spark, pyspark, apache spark, spark job, spark jobs
dag, dags, directed acyclic graph, task graph
pandas, pandas dataframe, pandas df
parquet, parquet file, parquet files, columnar format
jupyter, jupyter notebook, jupyter notebooks, ipynb, jupyterlab
data warehouse, dwh, snowflake, bigquery, redshift
backfill, backfills, backfilling, backfilled, reprocess history, historical reload
missing values, nan, nans, missing data, na values
partition, partitions, partitioned, partition pruning
data skew, skewed partitions, hot partition, skewed join, skewed data
chunk, chunks, chunked, chunking, in batches, batch size
tsv, tab-separated, tab separated, tab-delimited
jsonl, json lines, ndjson, newline-delimited json
yaml, yml, yaml file
file path, filepath, file paths, path to the file
filename, file name, filenames, file names, basename
file extension, file extensions, file suffix
utf-8, utf8
mojibake, garbled text, garbled characters, garbled, encoding issue, encoding issues
newline, newlines, line break, line breaks, linefeed, line feed
iso 8601, iso8601, iso date, iso format
unix time, epoch, unix timestamp, epoch time, epoch seconds, posix time, epoch millis
milliseconds, millis, msec, millisecond
12-hour clock, am/pm, 12 hour format, 12-hour format
24-hour clock, 24 hour format, military time, 24-hour format
leap year, leap day, february 29, feb 29
dd/mm/yyyy, day-first date, european date format
mm/dd/yyyy, month-first date, us date format
currency, currencies, currency code, iso 4217
decimal separator, decimal comma
rtl, right-to-left, right to left, bidi, bidirectional text
clock drift, time drift, ntp, clocks out of sync
end of month, month end, month-end, eom, last day of the month
business day, business days, working day, working days, weekday, weekdays
public holiday, bank holiday, public holidays, bank holidays
duration, elapsed time, time span, timespan, time taken
smtp, mail server, outgoing mail server, smtp server, smtp relay
bounced email, hard bounce, soft bounce, undeliverable, email bounce, bounced emails
spam, junk, spam folder, junk folder, junk mail, marked as spam
unsubscribe, opt out, opt-out, unsubscribed, unsubscribe link
email provider, email service provider, esp, sendgrid, mailgun, amazon ses, postmark
email authentication, spf, dkim, dmarc, spf record
attachment, attachments, attached file, file attachment
sender address, from address, from field, sender email
recipient, recipients, addressee, to address
transactional email, transactional emails, system email, triggered email
stripe, stripe api, stripe account
refund, refunds, refunded, reimbursement, money back, refunding
chargeback, chargebacks, dispute, disputes, disputed payment
subscription, subscriptions, recurring billing, recurring payment, recurring charge
credit card, credit cards, debit card, payment card, bank card, card number
card declined, declined, payment declined, declined payment, decline code, payment failed
3d secure, 3ds, strong customer authentication, 3-d secure
tax, taxes, vat, sales tax, gst
receipt, receipts, proof of purchase, purchase receipt
payout, payouts, settlement, disbursement, settlements
exchange rate, exchange rates, fx rate, currency conversion, fx
cents, minor units, smallest currency unit, pence, minor unit
free trial, trial, trial period, trial ends
variable, variables, var, vars
constant, constants, const, hardcoded value
parameter, parameters, param, params, argument, arguments, arg, args
hashmap, hash map, dictionary, dict, hash table, associative array, dicts
string, strings, str, text string
type hint, type hints, type annotation, type annotations
promise, promises, deferred, thenable
async, asynchronous, async/await, non-blocking, asynchronously
threading, multithreaded, multi-threaded, multithreading, worker thread, worker threads
subprocess, child process, spawned process, subprocesses, child processes
infinite loop, endless loop, loops forever, spins forever, never terminates
off-by-one, off by one, fencepost error, off by one error
edge case, edge cases, corner case, corner cases, boundary condition
happy path, golden path, success path, sunny day scenario
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
连接: connection
网络: network
请求: request
响应: response
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
结果: result
性能: performance
并发: concurrency
锁: lock
重复: duplicate
幂等: idempotent
分页: pagination
随机: random
不存在: nonexistent
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
代码: code
源码: source code
代码库: codebase, repository
项目: project
函数: function
方法: method
对象: object
常量: constant
回调: callback
异步: async, asynchronous
同步: sync, synchronous
并行: parallel
线程池: thread pool
线程安全: thread safe, thread safety
竞态: race condition
数组: array
列表: list
字典: dictionary, dict, map
字符串: string
整数: integer, int
浮点数: float, floating point
精度: precision
空值: null, null value
空指针: null pointer, npe
未定义: undefined
默认值: default value, default
返回值: return value
必填: required
类型转换: type conversion, cast
类型注解: type annotation, type hint
警告: warning
弃用: deprecated, deprecation
废弃: deprecated, obsolete
兼容: compatible, compatibility
向后兼容: backward compatible, backward compatibility
破坏性变更: breaking change
变更: change
改动: change, modification
修改: modify, change, edit
新增: add, added, new
移除: remove, removal
替换: replace, replacement
重命名: rename
冗余: redundant, redundancy
硬编码: hardcode, hardcoded
技术债: tech debt, technical debt
循环依赖: circular dependency
中间件: middleware
插件: plugin
框架: framework
包管理: package manager, package management
锁文件: lockfile, lock file
版本号: version number
固定版本: pinned version, pin
虚拟环境: virtualenv, virtual environment, venv
虚拟机: virtual machine, vm
垃圾回收: garbage collection, gc
内存溢出: oom, memory overflow
内存占用: memory usage, memory footprint
堆栈: stack trace, stack
死循环: infinite loop
命令行: command line, cli
控制台: console
退出码: exit code
后台: background, admin
杀掉: kill, killed
重启: restart, reboot
启动: start, startup, boot
停止: stop, halt
关闭: close, shutdown
优雅关闭: graceful shutdown
初始化: initialize, init
加载: load, loading
懒加载: lazy load, lazy loading
热更新: hot update, hot patch
保存: save, store
补丁: patch
修复: fix
缺陷: bug, defect
故障: failure, outage, fault
问题: issue, problem
根因: root cause
原因: cause, reason
排查: troubleshoot, debug, investigate
调试: debug, debugging
复现: reproduce, repro
偶现: intermittent, flaky, sporadic
必现: always reproducible, deterministic
不稳定: unstable, flaky
可用性: availability
高可用: high availability, ha
降级: degrade, fallback, downgrade
熔断: circuit breaker
兜底: fallback, safety net
退避: backoff
流水线: pipeline, ci pipeline
持续集成: continuous integration, ci
产物: artifact, artifacts
制品: artifact
打包: package, bundle, packaging
触发: trigger, triggered
检查: check, inspect
静态检查: lint, static analysis
代码检查: lint, linter
流程: process, flow, workflow
密钥: secret, key
凭证: credential, credentials
过期时间: expiry, expiration, ttl
有效期: validity period, expiry
拉取: pull, fetch
推送: push
强制推送: force push
变基: rebase
冲突: conflict
撤销: undo, revert
回退: revert, rollback
暂存: stash, stage, staging
远程: remote
主分支: main branch, master
热修复: hotfix
提交记录: commit history, git log
历史记录: history
压缩提交: squash
差异: diff, difference
合并请求: merge request, pull request, pr
拉取请求: pull request, pr
评审: review
审核: review, approval, audit
批准: approve, approval
驳回: reject, rejected
评论: comment, review comment
意见: feedback, comment
反馈: feedback
建议: suggestion, recommend
主键: primary key
外键: foreign key
唯一索引: unique index
联合索引: composite index
表结构: schema, table schema
慢查询: slow query
执行计划: query plan, explain
全表扫描: full table scan
分库分表: sharding
分片: shard, sharding
读写分离: read write splitting, read replica
主从: primary replica, replication
主从延迟: replication lag
主库: primary database, master
乐观锁: optimistic lock, optimistic locking
锁表: table lock, locked table
锁等待: lock wait
连接池: connection pool
连接数: connection count, connections
批量: batch, bulk
插入: insert
更新: update
软删除: soft delete
回填: backfill
备份: backup
恢复: restore, recover, recovery
快照: snapshot
一致性: consistency
分布式: distributed
偏移量: offset
排序: sort, sorting, ordering
去重: dedup, deduplicate, distinct
聚合: aggregate, aggregation
分组: group, grouping
统计: statistics, stats, count
关联查询: join
连表: join
模糊查询: fuzzy search, like query
搜索: search
缓存击穿: cache breakdown, hot key
缓存雪崩: cache avalanche
缓存失效: cache invalidation, cache expired
命中率: hit rate, hit ratio
未命中: cache miss, miss
缓存预热: cache warmup, warming
淘汰: eviction, evict
本地缓存: local cache
反序列化: deserialize, deserialization
脏数据: dirty data, stale data
旧数据: stale data
消费: consume, consumption
重复消费: duplicate consumption, redelivery
死信队列: dead letter queue, dlq
积压: backlog, lag
主题: topic, theme
订阅: subscribe, subscription
发布订阅: pubsub, publish subscribe
乱序: unordered, reordering, ordering
跨域: cors, cross origin
请求头: request header, header
请求体: request body, body
状态码: status code
重定向: redirect
网关: gateway, api gateway
反向代理: reverse proxy
域名: domain, domain name
域名解析: dns, dns resolution
长连接: keepalive, persistent connection
轮询: polling, round robin
鉴权: authentication, authorization, auth
授权: authorization, authorize, grant
单点登录: sso
第三方登录: oauth, social login
注入: injection
限速: rate limit, throttling
限额: quota, limit
配额: quota
解码: decode, decoding
转义: escape, escaping
加密: encrypt, encryption
解密: decrypt, decryption
哈希: hash
脱敏: masking, redact, desensitize
敏感信息: sensitive data, pii
漏洞: vulnerability
越权: privilege escalation, unauthorized access
白名单: allowlist, whitelist
审计: audit
节点: node
内网: internal network, intranet, private network
外网: public network, internet
公网: public network, public ip
地址: address
带宽: bandwidth
延迟: latency, delay
吞吐: throughput
挂载: mount
持久化: persistence, persistent
健康检查: health check
滚动更新: rolling update
扩缩容: autoscaling, scaling
缩容: downscale, scaling
镜像仓库: image registry, registry
基础镜像: base image
区域: region, area
负载: load
配置中心: config center, config server
微服务: microservice, microservices
运维: ops, operations
移动端: mobile
安卓: android
苹果: ios, apple
真机: real device, physical device
模拟器: emulator, simulator
闪退: crash, app crash
应用商店: app store
上架: app store release, listing, publish
小程序: mini program
横屏: landscape
适配: adapt, adaptation, support
机型: device model, device
屏幕: screen
深色模式: dark mode
离线: offline
弱网: poor network, weak network
前端: frontend, front end
后端: backend, back end
页面: page
组件: component
样式: style, css
布局: layout
渲染: render, rendering
白屏: blank page, white screen
刷新: refresh, reload
路由: routing, route, router
状态管理: state management
表单: form
按钮: button
弹窗: modal, popup, dialog
输入框: input, input box, text field
浏览器: browser
打包体积: bundle size
防抖: debounce
节流: throttle
首屏: first paint, initial load
服务端渲染: server-side rendering, ssr
跳转: redirect, navigate, navigation
响应式: responsive
重复提交: double submit, duplicate submission
防重: dedup, prevent duplicate
集成测试: integration test
端到端测试: end-to-end test, e2e
用例: test case, case
断言: assert, assertion
模拟: mock, simulate
打桩: stub, stubbing, mock
覆盖率: coverage, test coverage
冒烟测试: smoke test
压测: load test, stress test
测试环境: test environment, staging
开发环境: development environment, dev
预发: staging
灰度: canary, gray release, gradual rollout
上线: launch, release, go live
下线: decommission, offline
线上: production, online
回归: regression
跳过: skip, skipped
链路追踪: tracing, distributed tracing
追踪: trace, tracing
埋点: instrumentation, tracking, analytics event
仪表盘: dashboard
看板: dashboard, kanban, board
日志级别: log level
耗时: duration, latency, elapsed
响应时间: response time
错误率: error rate
阈值: threshold
值班: on-call, oncall
事故: incident
复盘: retrospective, postmortem, retro
影响范围: impact, blast radius
误报: false positive, false alarm
数据管道: data pipeline
数据仓库: data warehouse
数仓: data warehouse
清洗: cleaning, cleanse
增量: incremental, delta
全量: full load, full
补数: backfill
实时: realtime, real-time
流处理: stream processing, streaming
批处理: batch processing, batch
口径: metric definition, definition
缺失值: missing value
数据倾斜: data skew
上游: upstream
下游: downstream
压缩: compress, compression
解压: decompress, unzip, extract
时间戳: timestamp
毫秒: millisecond, ms
时间格式: time format, datetime format
时差: time difference, offset
夏令时: daylight saving time, dst
协调世界时: utc
本地时间: local time
服务器时间: server time
系统时间: system time, clock
时钟: clock
零点: midnight
凌晨: early morning, midnight
跨天: day boundary, crosses midnight
月底: month end
月末: month end
月初: month start
闰年: leap year
星期: weekday, week
周末: weekend
工作日: business day, weekday, workday
节假日: holiday, holidays
日历: calendar
截止日期: deadline, due date
到期: due, expire, expiry
创建时间: creation time, created_at
更新时间: update time, updated_at
时长: duration
间隔: interval
周期: period, cycle
每周: weekly
每月: monthly
语言环境: locale
区域设置: locale, regional settings
地区: region, locale
货币: currency
汇率: exchange rate
小数点: decimal point
四舍五入: rounding, round
舍入: rounding
全角: full-width, fullwidth
半角: half-width, halfwidth
简体: simplified chinese
繁体: traditional chinese
乱码: garbled text, mojibake, encoding issue
字符集: charset, character set
换行符: newline, line ending, crlf
换行: newline, line break
空格: space, whitespace
多语言: multilingual, i18n
日语: japanese
上级: manager, supervisor
主管: supervisor, manager
组长: team lead
同事: colleague, coworker
团队: team
需求: requirement, feature request
产品经理: product manager, pm
评估: evaluate, assess, estimate
估算: estimate, estimation
预估: estimate
工时: hours, effort, man-hours
工期: timeline, schedule
排期: schedule, scheduling, planning
延期: delay, postpone, slip
迭代: iteration, sprint
周报: weekly report
日报: daily report
站会: standup, daily standup
会议: meeting
进度: progress, status
交付: deliver, delivery
交接: handoff, handover
负责人: owner, assignee
优先级: priority
紧急: urgent
阻塞: blocking, blocked, blocker
沟通: communication, communicate
确认: confirm, confirmation
说明: explanation, description, notes
描述: description
简洁: concise, brief
冗长: verbose, lengthy
啰嗦: verbose, wordy
措辞: wording, phrasing
语气: tone
先说结论: conclusion first, bottom line
重点: key points, focus
摘要: summary, abstract
总结: summary, wrap-up
截图: screenshot
偏好: preference
习惯: habit, convention
约定: convention, agreement
命名: naming
缩进: indentation, indent
编码规范: coding standard, style guide
最佳实践: best practice
教训: lesson, lesson learned
经验: experience, lesson
踩坑: pitfall, gotcha
注意事项: caveat, notes, gotcha
提醒: reminder, remind
纠正: correction, correct
误删: accidental deletion, accidentally deleted
误操作: mistake, misoperation
疏忽: oversight, careless
遗漏: omission, missed
忘记: forgot, forget
漏掉: missed, omitted
写错: typo, wrong, mistake
拼写错误: typo, spelling error
笔误: typo
搞错: mistake, confused
丢失: lost, missing, loss
消失: disappear, vanish, missing
卡死: freeze, frozen, hang
卡顿: lag, stutter, jank
无响应: unresponsive, hang
挂了: crashed, dead, outage
挂掉: crashed, died
宕机: outage, downtime
失败: fail, failure, failed
出错: error, went wrong
超出: exceed, exceeded, limit exceeded
超过: exceed, exceeds
不生效: ineffective, ignored
无效: invalid
失效: invalidated, expired, broken
不一致: inconsistent, mismatch
不匹配: mismatch
泄漏: leak
泄露: leak, exposed
溢出: overflow
越界: bounds, index error, overflow
变慢: slow, slowdown
缓慢: slow
很慢: slow
堆积: pile, backlog, buildup
耗尽: exhausted, exhaustion, depleted
磁盘满: disk full
空间不足: insufficient space, disk full
损坏: corrupted, corrupt, broken
错乱: garbled, scrambled
中断: interrupt, interrupted, abort
断开: disconnect, disconnected
掉线: disconnected, dropped connection
重连: reconnect
拒绝: reject, refuse, denied
找不到: missing, unresolved
未找到: missing, nonexistent
缺少: missing, lack
多余: extra, redundant, unnecessary
被覆盖: overwritten, overridden
覆盖掉: overwritten, overwrite
丢弃: discard, drop
变大: grow, growing, larger
报错信息: error message
错误信息: error message
错误码: error code
提示: hint, prompt, message
为空: empty, null
重复执行: duplicate execution, ran twice
重复发送: duplicate send, sent twice
两次: twice, double
多次: multiple times, repeatedly
偶尔: occasionally, intermittent
频繁: frequent, frequently
功能开关: feature flag, feature toggle
绝对路径: absolute path
相对路径: relative path
文件名: filename, file name
扩展名: file extension, extension
后缀: suffix, extension
临时文件: temp file, temporary file
磁盘: disk
邮箱: email, mailbox
验证码: verification code, captcha, otp
手机号: phone number, mobile number
注册: signup, registration, register
注销: logout, deregister, account deletion
退出登录: logout
用户名: username
账号: account
退款: refund
库存: inventory, stock
更新日志: changelog, release notes
提示词: prompt
大模型: llm, large language model
幻觉: hallucination
边界: edge case, boundary
実装: implementation, implement
設計: design
仕様: spec, specification
要件: requirement, requirements
不具合: bug, defect
バグ: bug
障害: outage, failure, incident
修正: fix, correction
対応: handling, fix, support
調査: investigation, investigate
切り分け: isolate, triage, narrow
再現: reproduce, repro
検証: verification, verify, validate
確認: check, confirm
動作確認: manual check, smoke test, verify behavior
デバッグ: debug, debugging
スタックトレース: stack trace
例外: exception
エラー: error
エラーコード: error code
非推奨: deprecated
廃止: deprecated, removed, discontinued
互換性: compatibility
破壊的変更: breaking change
変更: change
差分: diff
リファクタ: refactor, refactoring
関数: function
変数: variable
環境変数: environment variable
引数: argument, parameter
戻り値: return value
配列: array
文字列: string
非同期: async, asynchronous
同期: sync, synchronize
並行: concurrent, concurrency
競合: conflict, race condition
デッドロック: deadlock
メモリ: memory
メモリリーク: memory leak
無限ループ: infinite loop
ライブラリ: library
パッケージ: package
依存関係: dependency, dependencies
設定: settings, config, configuration
コマンド: command
スクリプト: script
ディレクトリ: directory
権限: permission, permissions
起動: start, startup, launch
再起動: restart, reboot
読み込み: load, read, loading
上書き: overwrite
下書き: draft
削除: delete, deletion
取得: fetch, retrieve
ビルド: build
コンパイル: compile
デプロイ: deploy, deployment
リリース: release
本番: production, prod
本番環境: production environment, production
検証環境: staging, verification environment
ステージング: staging
開発環境: development environment, dev
パイプライン: pipeline
成果物: artifact, deliverable
キャッシュ: cache
静的解析: static analysis, lint
リンター: linter, lint
テスト: test
単体テスト: unit test
ユニットテスト: unit test
結合テスト: integration test
モック: mock
カバレッジ: coverage
負荷テスト: load test
パフォーマンス: performance
フレーキー: flaky
不安定: unstable, flaky
デグレ: regression
ブランチ: branch
マージし: merge, merged
マージされ: merged
コミット: commit
プッシュ: push
リベース: rebase
コンフリクト: conflict, merge conflict
リバート: revert
リポジトリ: repository, repo
プルリク: pull request, pr
レビュー: review
プレビュー: preview
コードレビュー: code review
レビュアー: reviewer
指摘: feedback, review comment
承認: approve, approval
差し戻し: sent back, rejected
コメント: comment
データベース: database, db
テーブル: table
カラム: column
レコード: record, row
主キー: primary key
外部キー: foreign key
インデックス: index
クエリ: query
スロークエリ: slow query
トランザクション: transaction
ロールバック: rollback
スキーマ: schema
マイグレーション: migration
バックアップ: backup
復元: restore, recover
レプリケーション: replication
接続プール: connection pool
ページネーション: pagination
ソート: sort
重複: duplicate, duplication
集計: aggregate, aggregation
楽観ロック: optimistic lock
ロック待ち: lock wait
ロックファイル: lockfile, lock file
有効期限: expiry, expiration, ttl
期限切れ: expired
キュー: queue
メッセージ: message
再送: resend, redelivery
リトライ: retry
冪等: idempotent
遅延: delay, latency, lag
エンドポイント: endpoint
リクエスト: request
レスポンス: response
ヘッダ: header
ステータスコード: status code
リダイレクト: redirect
クッキー: cookie
セッション: session
認証: authentication, auth
認可: authorization
トークン: token
ログイン: login
パスワード: password
暗号化: encryption, encrypt
ハッシュ: hash
証明書: certificate
脆弱性: vulnerability
秘密鍵: private key
機密情報: sensitive data, secret
個人情報: personal data, pii
プロキシ: proxy
ドメイン: domain
ネットワーク: network
タイムアウト: timeout
レート制限: rate limit
ウェブフック: webhook
コールバック: callback
連携: integration
ポート番号: port, port number
コンテナ: container
コンテナイメージ: container image, image
クラスタ: cluster
ノード: node
ネームスペース: namespace
ヘルスチェック: health check
オートスケール: autoscaling, autoscale
サーバ: server
クラウド: cloud
ロードバランサ: load balancer
インフラ: infrastructure, infra
ストレージ: storage
レイテンシ: latency
アプリ: app, application
スマホ: smartphone, mobile
実機: real device, physical device
エミュレータ: emulator
プッシュ通知: push notification
審査: review, app review
ストア申請: app store submission, app review
画面: screen
画面遷移: screen transition, navigation
ダークモード: dark mode
オフライン: offline
オンライン: online
端末: device, terminal
クラッシュ: crash
フロントエンド: frontend
バックエンド: backend
コンポーネント: component
レンダリング: rendering, render
描画: render, rendering, draw
ブラウザ: browser
状態管理: state management
真っ白: blank screen, white screen
表示崩れ: layout broken, rendering glitch
文字化け: mojibake, garbled text, encoding
監視: monitoring
アラート: alert
ダッシュボード: dashboard
メトリクス: metrics
ログ出力: logging, log output
ログレベル: log level
トレース: trace, tracing
計測: measure, measurement, instrumentation
閾値: threshold
しきい値: threshold
応答時間: response time
オンコール: on-call, oncall
インシデント: incident
振り返り: retrospective, retro
データ: data
バッチ: batch
バッチ処理: batch processing, batch job
全件: full load, full
欠損値: missing value
欠損: missing, gap
洗い替え: full reload, full refresh
取り込み: ingest, ingestion, import
上流: upstream
下流: downstream
タイムゾーン: timezone, time zone
日時: datetime, date time
日付: date
時刻: time, clock time
タイムスタンプ: timestamp
日本時間: jst, japan time
夏時間: daylight saving time, dst
サマータイム: daylight saving time, dst
時差: time difference
和暦: japanese calendar, era
年度: fiscal year
締め日: closing date, cutoff
締め切り: deadline
期限: deadline, due date, expiry
営業日: business day
祝日: holiday, public holiday
曜日: weekday, day-of-week
日跨ぎ: day boundary, crosses midnight
深夜: midnight, late night
ロケール: locale
多言語: multilingual, i18n
国際化: internationalization, i18n
翻訳: translation
文字コード: character encoding, charset
エンコード: encode, encoding
デコード: decode, decoding
改行コード: line ending, newline, crlf
改行: newline, line break
通貨: currency
為替: exchange rate
丸め: rounding
端数: fraction, remainder, rounding
報告: report
上司: boss, manager
リーダー: lead, leader
チーム: team
工数: effort, man-hours, estimate
見積: estimate, estimation
スケジュール: schedule
納期: deadline, due date
遅れ: delay, late, behind
進捗: progress, status
共有: share, sharing
相談: consult, discuss
連絡: contact, notify
定例: regular meeting
会議: meeting
朝会: standup, morning meeting
タスク: task
チケット: ticket, issue
課題: issue, task, problem
担当: owner, assignee
優先度: priority
緊急: urgent
ブロッカー: blocker
引き継ぎ: handoff, handover
ドキュメント: documentation, docs
手順: steps, procedure
運用: operations, ops
規約: convention, rules
コーディング規約: coding convention, style guide
命名規則: naming convention
文体: writing style, tone
敬語: polite language, honorific
簡潔: concise, brief
冗長: verbose, redundant
箇条書き: bullet points, bullet list
結論: conclusion
結論から: conclusion first, bottom line
要約: summary
好み: preference
方針: policy, approach
注意点: caveat, gotcha
教訓: lesson, lesson learned
ハマり: pitfall, gotcha, stuck
ハマった: stuck, gotcha
落とし穴: pitfall
ミス: mistake
勘違い: misunderstanding, wrong assumption
誤字: typo
タイポ: typo
誤り: error, mistake
うっかり: careless, accidentally
忘れ: forgot, forget
漏れ: omission, leak, missed
抜け漏れ: omission, gap
落ち: crash, crashed, outage
壊れ: broken, corrupted
破損: corrupted, corruption
固ま: freeze, frozen, hang
フリーズ: freeze, frozen
ハングし: hang, hung
止ま: stopped, stuck, halt
詰ま: stuck, clogged, blocked
待ち時間: wait time, waiting
遅い: slow
遅く: slow, slower
重い: heavy, slow
重く: heavy, slow
二重: double, duplicate
二重送信: double submit, duplicate send
二重実行: duplicate execution, ran twice
超過: exceed, exceeded, overage
上限: limit, max, upper limit
溢れ: overflow
枯渇: exhausted, exhaustion
不足: insufficient, shortage, missing
動かない: broken, fails
効かない: ineffective, ignored
反映: apply, reflected, propagate
失敗: failure, failed, fail
異常: abnormal, anomaly
不整合: inconsistency, mismatch
ズレ: drift, offset, mismatch
欠落: missing, dropped
再実行: rerun, re-run
切り戻し: rollback, revert
暫定対応: workaround, temporary fix
回避策: workaround
影響範囲: impact, blast radius
登録: register, registration
メール: email, mail
メールアドレス: email address
決済: payment
請求: billing, invoice
課金: billing, charge
プロンプト: prompt
テンプレート: template
ユーザ: user
イベント: event
インポート: import
エクスポート: export
レポート: report
変更履歴: changelog, change history
アップデート: update, upgrade
アップグレード: upgrade
ダウングレード: downgrade
ダウンロード: download
アップロード: upload
インストール: install
アンインストール: uninstall
サーバー: server
クライアント: client
ワーカー: worker
フレームワーク: framework
モジュール: module
パラメータ: parameter
オプション: option
送信: send
受信: receive
写入: write
读取: read
读写: read write
書き込み: write
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


#: The layout of a table cache file (`pack_tables`): 2 added the SHA-1.
_FORMAT = 2


def pack_tables(tables: _Tables) -> bytes:
    """The bytes of a table cache file: the tables (marshal) and their SHA-1, so that a file changed
    by anything but errnote, whatever it then holds, is rebuilt rather than trusted."""
    import hashlib
    import marshal

    payload = marshal.dumps((tables.english, tables.chinese, tables.longest))
    return marshal.dumps((hashlib.sha1(payload).hexdigest(), payload))


def unpack_tables(data: bytes) -> _Tables | None:
    """The tables of a cache file, or None when it is not one errnote wrote (broken, edited)."""
    import hashlib
    import marshal

    try:
        digest, payload = marshal.loads(data)
        if not isinstance(payload, bytes) or hashlib.sha1(payload).hexdigest() != digest:
            return None
        english, chinese, longest = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    if isinstance(english, dict) and isinstance(chinese, dict) and type(longest) is int:
        return _Tables(english, chinese, longest)
    return None


@lru_cache(maxsize=4)
def _tables(cache_dir: Path | None = None) -> _Tables:
    """The expansion tables; built from the text above (about 40 ms), or loaded from `cache_dir`."""
    if cache_dir is None:
        return _build_tables()
    import hashlib

    from errnote.search.analysis import ANALYSIS_VERSION

    # The file format is part of the name: two errnote versions sharing a cache (a hook's and a
    # venv's) keep a file each rather than rewriting each other's on every run.
    source = f"{_FORMAT}{_GROUPS}{_GLOSSARY}{ANALYSIS_VERSION}{SYNONYM_WEIGHT}{TRANSLATION_WEIGHT}"
    path = cache_dir / f"thesaurus-{hashlib.sha1(source.encode()).hexdigest()[:16]}.marshal"
    try:
        loaded = unpack_tables(path.read_bytes())
        if loaded is not None:
            return loaded
    except OSError:
        pass  # no cache yet: build and save it
    tables = _build_tables()
    with contextlib.suppress(OSError):
        from errnote.store import atomic_write_bytes, make_cache_dir

        make_cache_dir(cache_dir)
        atomic_write_bytes(path, pack_tables(tables))
        # Tables of another errnote version, unused for a day (two versions sharing one cache, a
        # hook's and a venv's, must not keep deleting each other's).
        stale = time.time() - 86400
        for old in cache_dir.glob("thesaurus-*.marshal"):
            with contextlib.suppress(OSError):
                if old != path and old.stat().st_atime < stale and old.stat().st_mtime < stale:
                    old.unlink()
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
    text = canonical(text)  # full-width `ｒｅｔｒｙ` is `retry`, as analysis reads it
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
