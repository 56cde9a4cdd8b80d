"""Ranked search: text in any language and script, queries that name a tool, output and questions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from conftest import settle

from errnote.notebook import Notebook
from errnote.search import ranking
from errnote.search.index import Index
from errnote.search.searcher import search


def synced(nb: Notebook) -> Index:
    """The notebook's index, in step with files old enough that no later scan re-reads them."""
    settle(nb)
    index = Index(nb.store)
    index.sync()
    return index


def ids(hits: Sequence[object]) -> list[str]:
    return [h.id for h in hits]  # type: ignore[attr-defined]


def test_accents_match_however_they_are_encoded(nb: Notebook) -> None:
    """macOS file names and some keyboards give `é` as `e` + a combining accent (NFD)."""
    import unicodedata

    nfd = unicodedata.normalize("NFD", "Le parseur de résumé échoue sur café")
    entry = nb.add("mistake", nfd, scope=[unicodedata.normalize("NFD", "path:docs/café/**")])
    assert nb.get(entry.id).title == nfd  # stored as written: a rewrite changes no byte of it
    assert ids(search(nb.store, "résumé parseur café")) == [entry.id]
    assert ids(search(nb.store, unicodedata.normalize("NFD", "résumé parseur café"))) == [entry.id]
    found = search(nb.store, "parseur", path=unicodedata.normalize("NFD", "docs/café/a.md"), threshold=False)
    assert ids(found) == [entry.id]
    assert ids(search(nb.store, "resume parser cafe")) == [entry.id]  # and typed without accents


def test_tags_and_tools_filter_however_they_are_encoded(nb: Notebook) -> None:
    import unicodedata

    nfd, nfc = unicodedata.normalize("NFD", "Café"), "café"
    entry = nb.add("lesson", "Order the beans on Monday", tags=[nfd], tool=nfd)
    scoped = nb.add("lesson", "Grind the beans on Monday", scope=[f"tool:{nfd}", f"{nfd} counter"])
    for name in (nfd, nfc):
        assert ids(search(nb.store, "order beans monday", tags=[name])) == [entry.id]
        assert set(ids(search(nb.store, "beans monday", tool=name))) == {entry.id, scoped.id}
        assert ids(search(nb.store, "beans monday", scope=f"{name} counter")) == [scoped.id]


def test_a_russian_entry_is_found_in_russian(nb: Notebook) -> None:
    entry = nb.add("mistake", "Ошибка кодировки в имени файла при загрузке отчёта")
    assert ids(search(nb.store, "ошибка кодировки имени файла")) == [entry.id]


def test_a_cjk_run_held_whole_ranks_above_its_pairs_scattered(nb: Notebook) -> None:
    """Phrase matching for text without spaces: the entry whose title holds 内存超时 ranks first,
    though its title is longer and the other holds every character pair of the query too."""
    whole = nb.add("lesson", "内存超时：后台导出任务被系统杀掉并且没有重试")
    scattered = nb.add("lesson", "内存告警，存超限额，请求超时")
    assert ids(search(nb.store, "内存超时", threshold=False)) == [whole.id, scattered.id]
    assert ids(search(nb.store, "存超限额", threshold=False))[0] == scattered.id


def test_an_english_entry_competes_for_a_cjk_query_it_matches_only_through_translations(nb: Notebook) -> None:
    """The query's character pairs that a Chinese entry holds are its rarest ideas; the English
    entry matches only 下单 (order) and 索引 (index), which are not among them, yet is scored."""
    english = nb.add("lesson", "Plain CREATE INDEX on orders blocked all writes for nine minutes")
    chinese = nb.add(
        "correction", "直接加外键约束导致两张大表长时间锁住，结果写入全部排队", body="支付表在高峰期接口超时"
    )
    for what in ("search index rebuild", "index page layout", "Elasticsearch index mapping"):
        nb.add("lesson", f"The {what} needs a version bump")
    found = ids(search(nb.store, "给支付表建索引，结果写入全部卡住，下单接口超时", threshold=False))
    assert found[:2] == [chinese.id, english.id]


def test_an_entry_scoring_above_every_hit_that_clears_the_threshold_is_shown(nb: Notebook) -> None:
    """The English entry matches the Chinese query only through translations (index, order,
    write, API, timeout): too little of its information to clear the threshold or be a near
    neighbour (under a tenth of it), yet the formula ranks it above the Chinese mistake that
    clears it. It is shown, after the hits the threshold lets through."""
    english = nb.add("lesson", "CREATE INDEX on the orders table blocked writes and the order API timed out")
    chinese = nb.add("mistake", "支付表加外键约束导致写入排队", body="高峰期排队。" * 5, confidence=0.0)
    for what in ("search index rebuild", "index page layout", "index mapping", "API docs layout"):
        nb.add("lesson", f"The {what} needs a version bump")
    query = "给支付表建索引，结果写入全部卡住，下单接口超时，客户投诉很多，老板很生气"
    by_score = search(nb.store, query, threshold=False)
    assert ids(by_score)[:2] == [english.id, chinese.id]
    evidence = by_score[0].evidence
    assert evidence is not None and not ranking.relevant(evidence) and not ranking.near(evidence)
    hits = search(nb.store, query)
    assert [(h.id, h.relevant, h.near) for h in hits] == [
        (chinese.id, True, False),
        (english.id, False, True),
    ]


def test_a_filter_keeps_its_entries_among_the_candidates_of_a_cjk_query(nb: Notebook) -> None:
    """Every idea of a CJK query selects candidates (the best 200 or so): a filter must choose among
    the entries it allows, not among those 200, or the one convention below them is never seen."""
    for i in range(220):
        nb.add("lesson", f"数据库迁移超时，索引重建失败 {i}", body="数据库迁移超时")
    convention = nb.add("convention", "迁移前先检查索引")
    found = search(nb.store, "数据库迁移超时，索引重建失败", types=["convention"], threshold=False)
    assert ids(found) == [convention.id]


def test_a_query_about_syncing_finds_unsynced_data(nb: Notebook) -> None:
    lost = nb.add("mistake", "An app update silently deleted every user's unsynced drafts")
    nb.add("lesson", "Drafts autosave every ten seconds")
    assert ids(search(nb.store, "drafts that had not been synced are gone after the update"))[0] == lost.id
    assert ids(search(nb.store, "同期していなかった下書き", threshold=False))[0] == lost.id  # 同期: sync


def test_thai_khmer_and_myanmar_entries_are_found_without_spaces_between_words(nb: Notebook) -> None:
    thai = nb.add("lesson", "การเชื่อมต่อฐานข้อมูลหมดเวลา ให้เพิ่ม pool_timeout")
    nb.add("lesson", "อย่าลบไฟล์บันทึกของระบบ")
    khmer = nb.add("insight", "ការតភ្ជាប់ទៅម៉ាស៊ីនមេបរាជ័យ")
    myanmar = nb.add("insight", "ဒေတာဘေ့စ်ချိတ်ဆက်မှုပြတ်တောက်")
    assert ids(search(nb.store, "ฐานข้อมูลหมดเวลา")) == [thai.id]
    assert ids(search(nb.store, "ម៉ាស៊ីនមេ")) == [khmer.id]
    assert ids(search(nb.store, "ချိတ်ဆက်မှု")) == [myanmar.id]


def test_a_small_notebook_about_one_tool_answers_its_name_and_phrases_in_any_order(nb: Notebook) -> None:
    made = [
        nb.add("lesson", "Pin docker base images by digest"),
        nb.add("lesson", "Use docker buildx for multi-arch images"),
        nb.add("mistake", "docker compose up failed: port 5432 in use"),
    ]
    assert set(ids(search(nb.store, "docker"))) == {e.id for e in made}  # every entry holds the word
    with_images = {made[0].id, made[1].id}
    assert set(ids(search(nb.store, "docker images"))) == with_images  # a thesaurus phrase, two words
    assert set(ids(search(nb.store, "images docker"))) == with_images


def test_one_word_of_a_phrase_is_not_the_phrase(nb: Notebook) -> None:
    for title in ("Resize images before upload", "Images must be webp", "Lazy load images below the fold"):
        nb.add("lesson", title)
    both = nb.add("lesson", "Docker images are rebuilt nightly")
    only_docker = [
        nb.add("lesson", t) for t in ("Docker compose needs the env file", "Docker volumes fill the disk")
    ]
    hits = search(nb.store, "docker images")
    assert hits[0].id == both.id
    assert not any(h.id in {e.id for e in only_docker} and not h.near for h in hits)


@pytest.fixture
def brokers(nb: Notebook) -> dict[str, str]:
    """A RabbitMQ lesson that shares many words with a Kafka question, and a Kafka entry."""
    made = {
        "rabbit": nb.add(
            "tool-quirk",
            "RabbitMQ consumer without prefetch took every message of the queue",
            body="The broker pushed all unacknowledged messages to the first consumer; the others sat idle "
            "and the batch was redelivered after it was killed.",
            fix="channel.basic_qos(prefetch_count=20) and basic_ack after processing",
            tool="pika",
            tags=["rabbitmq", "messaging"],
        ),
        "kafka": nb.add(
            "lesson",
            "Kafka consumer lag alerts must use the committed offsets of the group",
            body="Lag from the console consumer counted uncommitted reads.",
            tool="kafka-consumer-groups",
            tags=["kafka"],
        ),
        "prom": nb.add(
            "mistake", "Put user_id in a Prometheus label and exploded cardinality", tool="prometheus"
        ),
        "pnpm": nb.add("convention", "Use pnpm in this monorepo, never npm install", tool="pnpm"),
        "redis": nb.add("lesson", "Never run KEYS on production Redis; use SCAN", tool="redis-cli"),
    }
    return {k: v.id for k, v in made.items()}


KAFKA_QUESTION = (
    "Kafka producer with acks=1 lost a batch of messages when the broker failed over "
    "during the nightly deploy of the billing service"
)


def _evidence_of(nb: Notebook, query: str, entry_id: str, **kw: object) -> ranking.Evidence:
    found = {h.id: h.evidence for h in search(nb.store, query, threshold=False, **kw)}  # type: ignore[arg-type]
    evidence = found[entry_id]
    assert evidence is not None
    return evidence


def _answers_despite_the_tool_named(nb: Notebook, query: str, entry_id: str) -> None:
    """The entry is not ruled out by the tool `query` names, and answers it first."""
    assert not _evidence_of(nb, query, entry_id).other_tool
    assert ids(search(nb.store, query))[0] == entry_id


def test_a_question_naming_one_tool_is_not_answered_by_an_entry_of_another(
    nb: Notebook, brokers: dict[str, str]
) -> None:
    # The RabbitMQ lesson matches the words (batch, broker, messages) well enough to clear the
    # threshold, but it is recorded for pika, never mentions Kafka and holds a third of the question.
    rabbit = _evidence_of(nb, KAFKA_QUESTION, brokers["rabbit"])
    assert rabbit.other_tool and rabbit.coverage < ranking.OTHER_TOOL_COVERAGE
    assert ranking.relevant(replace(rabbit, other_tool=False))
    assert search(nb.store, KAFKA_QUESTION) == []
    # Named by its own tool, or by words alone, it is found as before.
    assert ids(search(nb.store, KAFKA_QUESTION.replace("Kafka", "pika")))[0] == brokers["rabbit"]
    assert ids(search(nb.store, KAFKA_QUESTION.replace("Kafka ", "")))[0] == brokers["rabbit"]


def test_an_entry_of_another_tool_holding_most_of_the_question_still_answers_it(nb: Notebook) -> None:
    uv = nb.add(
        "tool-quirk",
        "externally-managed-environment on the system Python",
        body="PEP 668: the distro Python refuses installs into it. Make a venv with uv venv, install there.",
        tool="uv",
    )
    nb.add("lesson", "Install the project editable so tests import the src layout", tool="pip")
    nb.add("convention", "Use pnpm in this monorepo, never npm install", tool="pnpm")
    query = "pip install fails with externally-managed-environment on the system Python"
    evidence = _evidence_of(nb, query, uv.id)
    assert evidence.other_tool and evidence.coverage >= ranking.OTHER_TOOL_COVERAGE
    assert ids(search(nb.store, query))[0] == uv.id


def test_output_naming_a_tool_still_finds_an_entry_of_another(nb: Notebook, brokers: dict[str, str]) -> None:
    # The program that printed an error is often not the one at fault: a line that looks like output
    # is not read as a question about the tool it names.
    question = "Kafka producer lost a batch of messages, the broker failed over"
    assert _evidence_of(nb, question, brokers["rabbit"]).other_tool
    assert brokers["rabbit"] not in ids(search(nb.store, question))
    for output in (f"[producer-1] {question}", f"WARN {question}"):
        assert not _evidence_of(nb, output, brokers["rabbit"]).other_tool
        assert brokers["rabbit"] in ids(search(nb.store, output))
    # The message lines of a paste, searched when the whole finds nothing, are output too; and so is
    # text that a caller says is output (inject's command of a hook).
    assert not _evidence_of(nb, question, brokers["rabbit"], output=True).other_tool
    assert brokers["rabbit"] in ids(search(nb.store, question, output=True))


def test_a_search_filtered_by_tool_is_not_ruled_by_the_tool_the_question_names(
    nb: Notebook, brokers: dict[str, str]
) -> None:
    assert ids(search(nb.store, KAFKA_QUESTION, tool="pika")) == [brokers["rabbit"]]


def test_an_entry_of_another_tool_that_mentions_the_named_one_clears(
    nb: Notebook, brokers: dict[str, str]
) -> None:
    body = "Unlike Kafka, the broker pushed all unacknowledged messages to the first consumer."
    nb.update(brokers["rabbit"], body=body + " The batch was redelivered after it was killed.")
    assert ids(search(nb.store, KAFKA_QUESTION))[0] == brokers["rabbit"]


def test_only_a_whole_word_names_a_tool(nb: Notebook, brokers: dict[str, str]) -> None:
    nb.add("lesson", "Node 20 needs --experimental-vm-modules for Jest ESM", tool="node")
    long_paths = nb.add(
        "tool-quirk",
        "Checkout fails on Windows with Filename too long",
        body="Deep trees exceed MAX_PATH: set git config core.longpaths true.",
        tool="git",
    )
    query = "checkout fails on Windows with Filename too long inside node_modules"
    _answers_despite_the_tool_named(nb, query, long_paths.id)  # `node_modules` is not `node`


def test_a_tool_no_live_entry_has_any_more_is_not_named(nb: Notebook, brokers: dict[str, str]) -> None:
    for i in range(15):  # enough entries that one edit leaves the old version in the index
        nb.add("insight", f"Filler note {i} about the router", tool=f"router{i}")
    assert _evidence_of(nb, KAFKA_QUESTION, brokers["rabbit"]).other_tool
    synced(nb)
    # The only Kafka entry moves to Redpanda: the index keeps its old version until segments merge.
    nb.update(brokers["kafka"], tool="redpanda")
    index = Index(nb.store)
    assert not index.sync().rebuilt
    import whoosh.index

    assert whoosh.index.open_dir(str(index.dir)).reader().has_deletions()
    assert not _evidence_of(nb, KAFKA_QUESTION, brokers["rabbit"]).other_tool
    assert ids(search(nb.store, KAFKA_QUESTION))[0] == brokers["rabbit"]


def test_a_word_names_a_tool_as_written_not_as_stemmed(nb: Notebook) -> None:
    nb.add("tool-quirk", "pod install fails after an Xcode upgrade", tool="pod")  # CocoaPods
    oom = nb.add(
        "lesson",
        "JVM pods OOMKilled after the chart upgrade: set the heap from the container limit",
        body="The new JVM ignores the limit unless -XX:MaxRAMPercentage is set.",
        tool="helm",
    )
    nb.add("convention", "Use pnpm in this monorepo, never npm install", tool="pnpm")
    query = "since the release the pods keep getting OOMKilled after the chart upgrade to the new JVM"
    _answers_despite_the_tool_named(nb, query, oom.id)  # `pods` is not the tool `pod`


def test_a_question_quoting_an_entrys_error_is_not_ruled_by_the_tool_it_names(
    nb: Notebook, brokers: dict[str, str]
) -> None:
    backoff = nb.add(
        "tool-quirk",
        "Crash loop hides the first failure",
        body="Read the previous container's logs with --previous.",
        error="Back-off restarting failed container",
        tool="kubectl",
    )
    query = "Back-off restarting failed container kafka in pod kafka-0 of the default namespace"
    _answers_despite_the_tool_named(nb, query, backoff.id)


def test_the_message_lines_of_a_paste_are_output(nb: Notebook, brokers: dict[str, str]) -> None:
    # Thirty lines of noise bury the one line that says what happened: the whole finds nothing, its
    # message line is searched instead, and that line is output, whatever it looks like.
    noise = "".join(f"    at com.example.app.Worker{i}.run(Worker{i}.java:{i + 10})\n" for i in range(30))
    assert brokers["rabbit"] not in ids(search(nb.store, KAFKA_QUESTION))  # as a question in words
    assert brokers["rabbit"] in ids(search(nb.store, noise + KAFKA_QUESTION))


def test_a_tool_named_by_another_of_its_names_is_mentioned(nb: Notebook) -> None:
    nb.add("lesson", "Draining a node needs a PodDisruptionBudget", tool="k8s")
    chart = nb.add(
        "tool-quirk",
        "Chart upgrade left pods stuck terminating",
        body="The Kubernetes pods waited for the full grace period after every upgrade of the chart.",
        tool="helm",
    )
    nb.add("convention", "Use pnpm in this monorepo, never npm install", tool="pnpm")
    query = "k8s pods stuck terminating after every chart upgrade"
    _answers_despite_the_tool_named(nb, query, chart.id)  # it says Kubernetes


@pytest.mark.parametrize("semantic", ["0", "1"])
def test_an_unthresholded_search_for_its_best_few_gives_the_head_of_a_full_one(
    nb: Notebook, monkeypatch: pytest.MonkeyPatch, semantic: str
) -> None:
    """A hook's read keeps its best N hits: candidates that cannot reach them are not scored
    (`searcher._score_best`), and the N it returns are those of scoring every candidate."""
    import errnote.search.searcher as searcher

    monkeypatch.setenv("ERRNOTE_SEMANTIC", semantic)
    words = ["migration", "column", "orders", "default", "backfill", "nullable"]
    for i in range(12):  # close matches, of several types and confidences
        picked = [words[(i + k) % len(words)] for k in range(2 + i % 4)]
        nb.add(
            ("lesson", "mistake", "insight")[i % 3],
            "Orders table: " + " ".join(picked),
            confidence=0.3 + i / 20,
        )
    filler = "the report page renders slowly when the cache is cold and the queue is long " * 3
    for i in range(48):  # far ones: one word of the query in a long text about something else
        nb.add("lesson", f"Report page {i} renders slowly", body=f"{filler} {words[i % len(words)]}")
    synced(nb)
    calls = 0
    scored = searcher._scored

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return scored(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(searcher, "_scored", counted)
    query = "add a nullable column to the orders table with a default and backfill it"
    every = search(nb.store, query, limit=100, threshold=False, wide=True, keyword=False)
    full = calls
    assert len(every) > 40
    assert (every[0].cosine is not None) == (semantic == "1")
    for limit in (1, 3, 5, 10):
        calls = 0
        best = search(nb.store, query, limit=limit, threshold=False, wide=True, keyword=False)
        assert [(h.id, h.score, h.applies, h.evidence, h.cosine) for h in best] == [
            (h.id, h.score, h.applies, h.evidence, h.cosine) for h in every[:limit]
        ]
        assert calls < full  # some candidates were left unscored
