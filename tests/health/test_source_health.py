"""source_health through the research function: figures per window, findings, the source filter."""

from __future__ import annotations

import json
import time

import jsonschema
import pytest

from functions.research.app import lambda_handler
from scholar.core.errors import INVALID_ARGUMENT, UNAVAILABLE
from scholar.families import get_tool
from scholar.services.health import source_status
from scholar.services.health.records import NO_SOURCE, record_of, rows_of
from scholar.store.usage import UsageReadError, UsageStore
from tests.health.synthetic import synthetic_call, synthetic_history

NOW = time.time()


def invoke(lambda_context, tool: str, principal: str = "apikey:ops", **arguments):
    return lambda_handler(
        {"tool": tool, "arguments": arguments, "principal": principal, "request_id": "r1"}, lambda_context
    )


def seed(store: UsageStore, records) -> None:
    store.put(row for record in records for row in rows_of(record))


@pytest.fixture
def broken_crossref(usage):
    """A healthy week for Crossref and S2, then a last hour in which Crossref answers 503."""
    seed(usage, synthetic_history("crossref", NOW, hours=30, per_hour=2) + synthetic_history("s2", NOW, hours=30))
    seed(usage, [synthetic_call("crossref", NOW - 60 * i, status=503) for i in range(1, 5)])
    seed(usage, [synthetic_call("s2", NOW - 60 * i) for i in range(1, 5)])
    return usage


def test_source_health_reports_the_failing_source_with_its_figures(broken_crossref, lambda_context):
    outcome = invoke(lambda_context, "source_health")
    assert outcome["ok"], outcome
    by_source = {h["source"]: h for h in outcome["result"]["sources"]}
    crossref = by_source["crossref"]
    assert crossref["status"] == "failing"
    assert [f["kind"] for f in crossref["findings"]] == ["went_quiet"]
    assert crossref["last_hour"]["error_mix"] == {"503": 4}
    # Day and week are counted in whole hours: the oldest hour of the window may reach a little further back.
    assert 4 + 2 * 22 <= crossref["last_24h"]["calls"] <= 4 + 2 * 23
    assert crossref["last_7d"]["calls"] == 4 + 60
    assert crossref["last_7d"]["p50_ms"] == 200 and crossref["last_7d"]["success_rate"] == round(60 / 64, 3)
    assert by_source["s2"]["status"] == "ok" and by_source["s2"]["findings"] == []
    assert "openalex" in outcome["result"]["sources_without_calls"]


def test_the_answer_validates_against_the_tool_s_output_schema(broken_crossref, lambda_context):
    result = invoke(lambda_context, "source_health")["result"]
    jsonschema.validate(result, get_tool("source_health").output_schema())


def test_the_source_filter_reports_one_source_even_without_calls(usage, lambda_context):
    outcome = invoke(lambda_context, "source_health", source="inspire")
    (inspire,) = outcome["result"]["sources"]
    assert inspire["source"] == "inspire" and inspire["status"] == "unknown"
    assert [f["kind"] for f in inspire["findings"]] == ["not_enough_history"]
    assert inspire["last_7d"]["calls"] == 0


def test_an_unknown_source_is_an_invalid_argument_naming_the_field(usage, lambda_context):
    outcome = invoke(lambda_context, "source_health", source="scihub")
    assert outcome["error"]["code"] == INVALID_ARGUMENT
    assert "source" in json.dumps(outcome["error"])


def test_an_unreadable_usage_table_is_unavailable_not_healthy(usage, lambda_context, monkeypatch):
    def fail(self, *args, **kwargs):
        raise UsageReadError("throttled")

    monkeypatch.setattr(UsageStore, "active_hours", fail)
    outcome = invoke(lambda_context, "source_health")
    assert outcome["error"]["code"] == UNAVAILABLE and outcome["error"]["retryable"] is True


def test_source_health_calls_are_recorded_too(broken_crossref, lambda_context):
    invoke(lambda_context, "source_health", source="s2")
    tools = [record_of(r).tool for r in broken_crossref.rows(NO_SOURCE, NOW - 60, time.time() + 1)]
    assert tools == ["source_health"]


def test_source_status_gives_pages_a_status_per_source_with_calls(broken_crossref):
    assert source_status() == {"crossref": "failing", "s2": "ok"}
