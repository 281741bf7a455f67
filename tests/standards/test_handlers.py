"""The standards tools called directly, against a catalogue published by a sync in moto."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from pydantic import ValidationError

from scholar.core.catalogue import CallContext, QueuedResult
from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, UPSTREAM_ERROR, ScholarError
from scholar.families.standards import service
from scholar.families.standards.handlers import HANDLERS
from scholar.families.standards.jobs import handle_sync_event
from scholar.families.standards.spec import GetStandardInput, ResolveInput, SearchInput, SyncStatusInput
from scholar.store.tasks import TaskStore

CTX = CallContext(principal="tester", request_id="req-1")


def call(tool: str, args):
    return asyncio.run(HANDLERS[tool](args, CTX))


@pytest.fixture
def synced(standards_aws):
    handle_sync_event({"source": "aws.scheduler"})
    return standards_aws


def test_a_cold_catalogue_starts_the_sync_and_answers_with_a_task(standards_aws):
    answer = call("resolve_standard_identifier", ResolveInput(raw="rfc3"))
    assert isinstance(answer, QueuedResult)
    assert (answer.tool, answer.reason) == ("resolve_standard_identifier", "cold_catalogue")
    task = TaskStore().get(answer.task_id, "tester")
    assert task is not None and task.status == "pending"
    # The sync function receives what the cold path sent, syncs, then answers the waiting call.
    [payload] = standards_aws.started
    summary = handle_sync_event(payload)
    assert summary["task"] == "completed"
    task = TaskStore().get(answer.task_id, "tester")
    assert task.status == "completed"
    assert task.result["canonical"] == "RFC 3"
    assert TaskStore().get(answer.task_id, "someone-else") is None


def test_resolve_answers_the_seed_shapes(synced):
    found = call("resolve_standard_identifier", ResolveInput(raw="nist sp 800-53"))
    assert (found.canonical, found.body) == ("NIST SP 800-53 Rev. 5", "NIST")
    assert found.record.status == "current"
    assert "NIST SP 800-53 Rev. 4 (upd3)" in {v.id for v in found.other_versions}
    ambiguous = call("resolve_standard_identifier", ResolveInput(raw="quality management systems"))
    assert ambiguous.ambiguous and ambiguous.candidates and ambiguous.canonical is None
    nothing = call("resolve_standard_identifier", ResolveInput(raw="ISO 99999")).model_dump()
    assert (nothing["canonical"], nothing["body"], nothing["record"], nothing["warning"]) == (None, None, None, None)


def test_search_states_its_completeness(synced):
    result = call("search_standards", SearchInput(query="information security management", limit=5))
    assert result.partial is False and result.failed_bodies == []
    assert result.results[0].identifier == "ISO/IEC 27001:2022"
    assert result.catalogue_version


def test_search_filters_by_body_and_status(synced):
    result = call("search_standards", SearchInput(query="floating point", body="IEEE", status="current"))
    assert [r.identifier for r in result.results] == ["IEEE Std 754-2019", "IEEE Std 754-2019 Redline"]


def test_search_rejects_an_unknown_body_and_a_limit_over_50(synced):
    with pytest.raises(ScholarError) as err:
        call("search_standards", SearchInput(query="x", body="ACME"))
    assert err.value.code == INVALID_ARGUMENT and err.value.field == "body"
    with pytest.raises(ValidationError):
        SearchInput(query="x", limit=51)


def test_get_standard_returns_the_record_with_its_links(synced):
    record = call("get_standard", GetStandardInput(identifier="ISO 9001:2015"))
    assert record.status == "current"
    assert record.amendments == ["ISO 9001:2015/Amd 1:2024"]
    assert "ISO 9001:2008" in record.supersedes
    assert record.full_text is None and record.full_text_error is None
    by_id = call("get_standard", GetStandardInput(identifier="NIST SP 800-53 Rev. 5 (ipd)"))
    assert (by_id.id, by_id.status) == ("NIST SP 800-53 Rev. 5 (ipd)", "withdrawn")


def test_get_standard_of_a_plain_edition_identifier_answers_its_update_in_force(synced):
    answer = call("get_standard", GetStandardInput(identifier="NIST SP 800-53 Rev. 5"))
    assert answer.id == "NIST SP 800-53 Rev. 5 (upd1)"
    assert "NIST SP 800-53 Rev. 5" in {v.id for v in answer.other_versions}


def test_get_standard_of_a_withdrawn_plain_identifier_answers_what_resolve_answers(synced):
    resolved = call("resolve_standard_identifier", ResolveInput(raw="NIST SP 800-53"))
    answer = call("get_standard", GetStandardInput(identifier="NIST SP 800-53"))

    assert answer.status == "current" and answer.identifier == resolved.canonical == "NIST SP 800-53 Rev. 5"
    original = {v.id: v for v in answer.other_versions}["NIST SP 800-53"]  # the 2005 original, withdrawn
    assert original.status != "current"


def test_a_standard_the_synced_catalogue_lacks_is_asked_of_its_source(synced):
    # The catalogue holds the rfc-index excerpt (RFC 1 … 300s); RFC 8341 is only in relaton-data-ietf
    found = call("resolve_standard_identifier", ResolveInput(raw="rfc8341"))
    record = call("get_standard", GetStandardInput(identifier="RFC 8341"))

    assert (found.canonical, found.body, found.matched_by) == ("RFC 8341", "IETF", "source")
    assert found.record.title == "Network Configuration Access Control Model" and "source" in found.warning
    assert (record.identifier, record.status) == ("RFC 8341", "current")


def test_a_source_that_fails_is_a_warning_beside_the_null_record_never_a_plain_nothing(synced):
    synced.overrides["relaton_doc"] = httpx.Response(503, text="busy")

    found = call("resolve_standard_identifier", ResolveInput(raw="RFC 8341"))
    with pytest.raises(ScholarError) as err:
        call("get_standard", GetStandardInput(identifier="RFC 8341"))

    assert found.record is None and "did not answer" in found.warning
    assert (err.value.code, err.value.retryable) == (UPSTREAM_ERROR, True)
    missing = call("resolve_standard_identifier", ResolveInput(raw="RFC 99999"))  # looked, and no such RFC
    assert (missing.record, missing.warning) == (None, None)


def test_get_standard_not_found_and_ambiguous_are_distinct_errors(synced):
    with pytest.raises(ScholarError) as err:
        call("get_standard", GetStandardInput(identifier="RFC 99999"))
    assert (err.value.code, err.value.reason) == (NOT_FOUND, "not_found")
    with pytest.raises(ScholarError) as err:
        call("get_standard", GetStandardInput(identifier="quality management systems"))
    assert (err.value.code, err.value.reason) == (INVALID_ARGUMENT, "ambiguous")


def test_get_standard_pages_rfc_text(synced):
    first = call("get_standard", GetStandardInput(identifier="rfc 3", fetch_full_text=True, max_chars=20_000))
    assert first.text_returned_chars == 20_000 and first.text_truncated is True
    assert first.next_offset == 20_000 and first.text_total_chars == 30_009
    rest = call(
        "get_standard", GetStandardInput(identifier="RFC3", fetch_full_text=True, text_offset=first.next_offset)
    )
    assert (rest.text_returned_chars, rest.next_offset, rest.text_truncated) == (10_009, None, False)
    assert sum(r == "GET /rfc_editor/rfc/rfc3.txt" for r in synced.requests) == 1  # the second page came from the cache
    plain = call("get_standard", GetStandardInput(identifier="RFC3"))
    assert plain.full_text is None


def test_a_failed_text_fetch_still_returns_the_record(synced):
    synced.overrides["rfc_text"] = httpx.Response(503, text="busy")
    record = call("get_standard", GetStandardInput(identifier="RFC 24", fetch_full_text=True))
    assert record.identifier == "RFC 24"
    assert record.full_text is None and record.full_text_error.startswith(UPSTREAM_ERROR)


def test_an_html_page_instead_of_rfc_text_is_an_error_and_is_not_cached(synced):
    # SYNTHETIC: a maintenance page on HTTP 200 where the RFC Editor serves text/plain.
    synced.overrides["rfc_text"] = httpx.Response(
        200, text="<html><body><h1>We'll be back shortly</h1></body></html>", headers={"content-type": "text/html"}
    )
    record = call("get_standard", GetStandardInput(identifier="RFC 3", fetch_full_text=True))
    assert record.full_text is None and record.full_text_error.startswith(UPSTREAM_ERROR)
    del synced.overrides["rfc_text"]
    again = call("get_standard", GetStandardInput(identifier="RFC 3", fetch_full_text=True))
    assert again.full_text.startswith("RFC TEXT")


def test_a_body_that_never_synced_makes_answers_partial(standards_aws):
    standards_aws.overrides["github_head_ISO"] = httpx.Response(503, text="busy")
    standards_aws.overrides["relaton_index_ISO"] = httpx.Response(503, text="busy")
    handle_sync_event({})
    result = call("search_standards", SearchInput(query="quality management"))
    assert result.partial is True and result.failed_bodies == ["ISO"]
    assert "ISO" in result.warning
    with pytest.raises(ScholarError) as err:
        call("get_standard", GetStandardInput(identifier="ISO 9001"))
    assert (err.value.code, err.value.retryable) == (UPSTREAM_ERROR, True)


def test_resolving_in_a_body_with_nothing_synced_is_a_null_record_with_a_warning_not_a_silent_nothing(standards_aws):
    # Seed 001: a warning beside a null record means the source never answered (the standard may exist);
    # only a null record without a warning means the sources looked and found nothing.
    standards_aws.overrides["github_head_ISO"] = httpx.Response(503, text="busy")
    standards_aws.overrides["relaton_index_ISO"] = httpx.Response(503, text="busy")
    handle_sync_event({})
    standards_aws.started.clear()

    answer = call("resolve_standard_identifier", ResolveInput(raw="ISO 9001"))

    assert (answer.record, answer.canonical) == (None, None)
    assert "ISO not synced yet" in answer.warning
    assert [p.get("bodies") for p in standards_aws.started] == [["ISO"]]  # and a new sync of ISO has started


def test_a_failed_body_is_synced_again_by_the_next_call_that_needs_it_once_per_interval(standards_aws):
    # Given ISO's sync failed: no ISO data in the catalogue
    standards_aws.overrides["github_head_ISO"] = httpx.Response(503, text="busy")
    standards_aws.overrides["relaton_index_ISO"] = httpx.Response(503, text="busy")
    handle_sync_event({})
    standards_aws.started.clear()
    # When calls need ISO, one on-demand sync of ISO is started, not one per call
    for _ in range(3):
        with pytest.raises(ScholarError) as err:
            call("get_standard", GetStandardInput(identifier="ISO 9001"))
        assert (err.value.code, err.value.reason) == (UPSTREAM_ERROR, "not_synced")
    assert [p.get("bodies") for p in standards_aws.started] == [["ISO"]]
    # And once ISO answers again, that sync brings its data back without waiting for the schedule
    standards_aws.overrides.clear()
    handle_sync_event(standards_aws.started[0])
    service.holder().reset()
    assert call("get_standard", GetStandardInput(identifier="ISO 9001:2015")).body == "ISO"


def test_get_sync_status_is_empty_before_the_first_sync_and_lists_every_body_after(standards_aws):
    assert call("get_sync_status", SyncStatusInput()).runs == []
    handle_sync_event({})
    runs = call("get_sync_status", SyncStatusInput()).runs
    assert [r.body for r in runs] == ["IETF", "NIST", "W3C", "ETSI", "ISO", "IEC", "IEEE"]
    assert all(r.finished_at and r.started_at for r in runs)


def test_the_catalogue_is_rechecked_at_most_once_a_minute(standards_aws, tmp_path):
    now = [1000.0]
    holder = service.CatalogueHolder(directory=tmp_path / "c", clock=lambda: now[0])
    assert holder.get() is None
    handle_sync_event({"bodies": ["IETF"]})
    assert holder.get() is None  # checked less than a minute ago
    now[0] += 61
    first = holder.get()
    assert first is not None and first.count() == 305
    handle_sync_event({"bodies": ["NIST"]})
    now[0] += 30
    assert holder.get() is first
    now[0] += 31
    second = holder.get()
    assert second is not first and second.count() == 305 + 839
    assert not first.path.exists()  # the old copy is removed after the swap
    holder.reset()


def test_the_sync_lambda_entry_point_runs_a_scheduled_event(standards_aws, lambda_context):
    from functions.standards_sync.app import lambda_handler

    out = lambda_handler({"source": "aws.scheduler", "detail-type": "Scheduled Event"}, lambda_context)
    assert out["published"] is True
    assert {r["body"] for r in out["runs"]} == {"IETF", "NIST", "W3C", "ETSI", "ISO", "IEC", "IEEE"}


def test_the_local_stack_runs_the_cold_sync_on_a_background_thread(standards_aws, env):
    import threading

    from scholar.families.standards import cold

    env.set(SCHOLAR_LOCAL_DISPATCH="1")
    cold.set_sync_starter(None)  # the default starter: no async Lambda invoke here, so a thread
    answer = call("search_standards", SearchInput(query="floating point"))
    assert isinstance(answer, QueuedResult)
    [worker] = [t for t in threading.enumerate() if t.name == "standards_sync-async"]
    worker.join(timeout=120)
    assert not worker.is_alive()
    task = TaskStore().get(answer.task_id, "tester")
    assert task.status == "completed"
    assert "IEEE Std 754-2019" in {r["identifier"] for r in task.result["results"]}


def test_the_standards_lambda_entry_point_dispatches_tools_and_wraps_errors(standards_aws, lambda_context):
    from functions.standards.app import lambda_handler

    handle_sync_event({"bodies": ["IETF"]})
    ok = lambda_handler(
        {"tool": "resolve_standard_identifier", "arguments": {"raw": "RFC0024"}, "principal": "t"}, lambda_context
    )
    assert ok["ok"] is True and ok["result"]["canonical"] == "RFC 24"
    missing = lambda_handler(
        {"tool": "get_standard", "arguments": {"identifier": "RFC 99999"}, "principal": "t"}, lambda_context
    )
    assert missing["ok"] is False and missing["error"]["code"] == NOT_FOUND
    bad = lambda_handler(
        {"tool": "search_standards", "arguments": {"query": "x", "limit": 99}, "principal": "t"}, lambda_context
    )
    assert bad["error"]["code"] == INVALID_ARGUMENT and bad["error"]["details"]["field"] == "limit"
