"""The hourly probe, run from a synthetic scheduler event: one known-good request per idle configured source."""

from __future__ import annotations

import time

import pytest

from functions.probe.app import lambda_handler
from scholar.services.health.probe import PROBES, configured_sources
from scholar.services.health.records import record_of, rows_of
from scholar.store.usage import UsageStore, hour_of
from tests.events import load_event
from tests.health.synthetic import synthetic_call, synthetic_history


@pytest.fixture
def answering(upstream, env):
    """Every source answers 200 except Crossref (503); no retries, so one attempt per probe."""
    env.set(SCHOLAR_RETRY_BUDGET_S="0", SCHOLAR_CONTACT_EMAIL="probe-tests@example.org")
    crossref = upstream.route(path__startswith="/crossref/").respond(503, json={"status": "unavailable"})
    rest = upstream.route().respond(200, json={"ok": True})
    return crossref, rest


def probe_rows(store: UsageStore, source: str):
    return [r for r in (record_of(row) for row in store.rows(source, 0, 4_000_000_000)) if r.tool == "probe"]


def test_the_scheduled_probe_asks_every_configured_source_once_and_names_the_failing_one(
    usage, answering, lambda_context
):
    run = lambda_handler(load_event("scheduler_probe"), lambda_context)
    configured = configured_sources()
    assert "epo_ops" not in configured  # no EPO keys: not configured, not probed
    assert "docling" in configured  # the proxy base serves every source, docling too
    assert run["probed"] == len(configured) and run["skipped"] == 0
    assert run["failed"] == ["crossref"]
    for source in configured:
        (record,) = probe_rows(usage, source)
        assert record.sources[0].requests == 1
    assert probe_rows(usage, "crossref")[0].outcome == "upstream_error"
    assert probe_rows(usage, "s2")[0].outcome == "ok"


def test_a_source_real_use_exercised_this_hour_is_not_probed(usage, answering, lambda_context):
    usage.put(rows_of(synthetic_call("s2", time.time() - 120)))
    run = lambda_handler(load_event("scheduler_probe"), lambda_context)
    (s2,) = [r for r in run["results"] if r["source"] == "s2"]
    assert s2["skipped"] == "used in the last hour"
    assert probe_rows(usage, "s2") == []
    assert not [c for c in answering[1].calls if c.request.url.path.startswith("/s2/")]


def test_all_probe_records_go_out_in_one_batch(usage, answering, lambda_context, monkeypatch):
    batches = []
    real = UsageStore.put
    monkeypatch.setattr(UsageStore, "put", lambda self, rows: batches.append(list(rows)) or real(self, batches[-1]))
    lambda_handler(load_event("scheduler_probe"), lambda_context)
    assert len(batches) == 1 and len(batches[0]) == len(configured_sources())


def test_the_probe_rolls_up_finished_hours(usage, answering, lambda_context):
    now = time.time()
    history = synthetic_history("openalex", now, hours=3, per_hour=2)
    usage.put(row for record in history for row in rows_of(record))
    lambda_handler(load_event("scheduler_probe"), lambda_context)
    rolled = usage.rollups("openalex", now - 86_400, now)
    assert set(rolled) == {hour_of(r.at) for r in history}
    assert sum(doc["calls"] for doc in rolled.values()) == 6


def test_every_probe_asks_a_registered_source():
    from scholar.sources.registry import SOURCES

    assert set(PROBES) <= set(SOURCES)
    assert all(probe.path.startswith("/") for probe in PROBES.values())
