"""Every tool call leaves one usage record, written in one batch behind the call's answer, never failing the call."""

from __future__ import annotations

import json
import logging
import threading

import httpx
import pytest

from functions.papers.app import lambda_handler
from scholar.core import aio
from scholar.core.errors import UPSTREAM_ERROR
from scholar.services.health import recorder
from scholar.services.health.records import NO_SOURCE, hash_principal, record_of
from scholar.store.usage import UsageStore, UsageWriteError, wait_written
from tests.health.conftest import USAGE_TABLE

SEARCH = "/s2/graph/v1/paper/search"
JSON = {"Content-Type": "application/json"}
PNAS_DOI = "10.1073/pnas.1414271111"


def invoke(lambda_context, tool: str, principal: str = "apikey:alice-key-id", **arguments):
    event = {"tool": tool, "arguments": arguments, "principal": principal, "request_id": "req-7f3a9c"}
    return lambda_handler(event, lambda_context)


def stored(store: UsageStore, source: str):
    return [record_of(row) for row in store.rows(source, 0, 4_000_000_000)]


@pytest.fixture
def turing(upstream, fixture_file):
    body = fixture_file("upstream/semantic_scholar/search_paper_turing.json")
    return upstream.get(SEARCH).respond(200, content=body, headers=JSON), json.loads(body)


def test_a_search_leaves_one_record_with_the_source_s_figures(usage, turing, lambda_context):
    _, recorded = turing
    outcome = invoke(lambda_context, "search_papers", query="turing", limit=100)
    assert outcome["ok"] is True
    (record,) = stored(usage, "s2")
    assert (record.tool, record.family, record.outcome) == ("search_papers", "papers", "ok")
    assert record.principal == hash_principal("apikey:alice-key-id", "test-salt")
    (s2,) = record.sources
    assert (s2.requests, s2.failures, s2.statuses) == (1, 0, {"200": 1})
    assert s2.bytes > 0 and s2.empty is False
    # The compact search asks S2 for titles only: every record of the answer lacks an abstract.
    assert s2.records == s2.missing_abstracts == len(recorded["data"])


def test_a_cached_repeat_is_recorded_as_a_call_that_asked_no_source(usage, turing, lambda_context):
    invoke(lambda_context, "search_papers", query="turing", limit=100)
    invoke(lambda_context, "search_papers", query="turing", limit=100)
    assert len(stored(usage, "s2")) == 1
    (local,) = stored(usage, NO_SOURCE)
    assert local.outcome == "ok" and local.sources[0].requests == 0


def test_a_failing_source_is_recorded_with_its_status_and_the_error_code(usage, upstream, env, lambda_context):
    env.set(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(SEARCH).respond(503, json={"message": "unavailable"})
    outcome = invoke(lambda_context, "search_papers", query="turing")
    assert outcome["error"]["code"] == UPSTREAM_ERROR
    (record,) = stored(usage, "s2")
    assert record.outcome == UPSTREAM_ERROR
    assert (record.sources[0].failures, record.sources[0].statuses) == (1, {"503": 1})


def test_a_timeout_counts_as_a_failed_attempt(usage, upstream, env, lambda_context):
    env.set(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(SEARCH).mock(side_effect=httpx.ReadTimeout("slow"))
    invoke(lambda_context, "search_papers", query="turing")
    (record,) = stored(usage, "s2")
    assert record.sources[0].statuses == {"timeout": 1} and not record.sources[0].succeeded


def test_a_failed_write_is_logged_and_counted_and_the_call_still_answers(
    usage, turing, lambda_context, monkeypatch, caplog
):
    def refuse(self, rows):
        raise UsageWriteError("throttled")

    counted = []
    monkeypatch.setattr(UsageStore, "put", refuse)
    monkeypatch.setattr(recorder, "count_write_failure", lambda: counted.append(1))
    with caplog.at_level(logging.ERROR, logger="scholar.services.health.recorder"):
        outcome = invoke(lambda_context, "search_papers", query="turing", limit=100)
        assert wait_written()
    assert outcome["ok"] is True and outcome["result"]["data"]
    assert counted == [1]
    assert any(r.name == "scholar.services.health.recorder" for r in caplog.records)


def test_the_call_s_records_go_out_in_one_batch_write(usage, turing, lambda_context, monkeypatch):
    batches = []
    real = UsageStore.put
    monkeypatch.setattr(UsageStore, "put", lambda self, rows: batches.append(list(rows)) or real(self, batches[-1]))
    invoke(lambda_context, "search_papers", query="turing", limit=100)
    assert wait_written()
    assert len(batches) == 1


def test_the_answer_does_not_wait_for_its_usage_write(usage, turing, lambda_context, monkeypatch):
    release, writing = threading.Event(), threading.Event()
    real = UsageStore.put

    def held(self, rows):
        writing.set()
        assert release.wait(10)
        real(self, rows)

    monkeypatch.setattr(UsageStore, "put", held)
    outcome = invoke(lambda_context, "search_papers", query="turing", limit=100)
    assert outcome["ok"] is True  # answered while its record's write is still held
    assert writing.wait(10) and not wait_written(timeout_s=0)
    release.set()
    (record,) = stored(usage, "s2")  # a reader in the same process waits for the queued write
    assert record.tool == "search_papers"


def test_no_record_holds_query_text_identifiers_arguments_or_the_caller(
    usage, upstream, fixture_file, env, lambda_context, aws
):
    env.set(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(SEARCH).respond(
        200, content=fixture_file("upstream/semantic_scholar/search_paper_turing.json"), headers=JSON
    )
    upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(
        200, content=fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"), headers=JSON
    )
    upstream.get(f"/crossref/works/{PNAS_DOI}").respond(
        404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt")
    )
    invoke(lambda_context, "search_papers", principal="apikey:secret-key-id-42", query="turing", venue="Mind", limit=7)
    invoke(lambda_context, "get_paper", principal="apikey:secret-key-id-42", identifier=PNAS_DOI)
    assert wait_written()
    items = aws.dynamodb.scan(TableName=USAGE_TABLE)["Items"]
    assert len(items) >= 4  # the search's and get_paper's rows, and their hour markers
    text = json.dumps(items).lower()
    for secret in (
        "turing",
        "mind",
        "1414271111",
        "pnas",
        "db3720c812a462ef955d5654b65ca9189d4b8372",
        "secret-key-id-42",
        "req-7f3a9c",
        '"limit"',
        "venue",
    ):
        assert secret not in text, secret


def test_a_single_paper_counts_as_one_record_with_or_without_its_abstract():
    call = recorder.Call(tool="get_paper", family="papers", principal="p")
    call.source("s2").requests = 1
    call.source("crossref").requests = 1
    call.ended({"ok": True, "result": {"title": "T", "sources": ["s2"], "authors": [{"name": "A"}]}})
    s2, crossref = call.stats["s2"], call.stats["crossref"]
    assert (s2.records, s2.missing_abstracts, s2.empty) == (1, 1, None)
    assert (crossref.records, crossref.missing_abstracts) == (0, 0)


def test_a_tool_s_own_account_of_a_source_wins_over_the_inferred_one():
    async def tool() -> None:
        recorder.note_attempt("openalex", 200, 0.05, 10)
        recorder.note_answer("openalex", records=3, missing_abstracts=0)
        recorder.annotate(ranker="rrf")

    call = recorder.Call(tool="search", family="research", principal="p")
    aio.run(call.bind(tool()))
    call.ended({"ok": True, "result": {"data": [{"title": "x", "sources": ["openalex"]}]}})
    (record,) = call.record()
    assert record.ranker == "rrf"
    assert (record.sources[0].records, record.sources[0].missing_abstracts) == (3, 0)


def test_outside_a_recorded_call_the_hooks_do_nothing():
    assert recorder.current() is None
    recorder.note_attempt("s2", 200, 0.1)
    recorder.annotate(pdf_origin="arxiv")


def test_where_a_pdf_came_from_is_taken_from_the_result():
    call = recorder.Call(tool="fetch_paper_pdf", family="pdf", principal="p")
    call.ended({"ok": True, "result": {"pdf": {"pdf_path": "pdfs/ab.pdf", "pdf_source": "arxiv"}}})
    (record,) = call.record()
    assert record.pdf_origin == "arxiv" and record.ranker is None
