"""The sync end to end in moto: recorded upstreams in, a published catalogue the standards function reads."""

from __future__ import annotations

import asyncio
import io
import json
import zipfile

import httpx
import yaml

from scholar.families.standards import service
from scholar.families.standards.bodies import Limits
from scholar.families.standards.jobs import handle_sync_event
from scholar.families.standards.records import BODIES
from scholar.families.standards.runs import latest_runs
from scholar.families.standards.storage import IndexStore
from scholar.families.standards.sync import run_sync
from tests.standards.records_from_fixtures import relaton_files

# A synthetic EventBridge Scheduler event: schedules never fire in moto, so the test sends what one would.
SCHEDULED_EVENT = {
    "version": "0",
    "id": "3e0a5a3c-2d06-4c8a-9d53-2e0d2d9d2b1f",
    "detail-type": "Scheduled Event",
    "source": "aws.scheduler",
    "account": "123456789012",
    "time": "2026-11-30T03:00:00Z",
    "region": "us-east-1",
    "resources": ["arn:aws:scheduler:us-east-1:123456789012:schedule/default/scholar-standards-sync"],
    "detail": "{}",
}


def _runs_by_body(summary: dict) -> dict[str, dict]:
    return {run["body"]: run for run in summary["runs"]}


def test_a_scheduled_sync_publishes_a_catalogue_of_every_body(standards_aws):
    summary = handle_sync_event(SCHEDULED_EVENT, remaining_s=900)
    assert summary["published"] is True
    runs = _runs_by_body(summary)
    assert set(runs) == set(BODIES)
    assert runs["IETF"]["added"] == 305
    assert runs["NIST"]["added"] == 839
    assert runs["ISO"]["added"] == 12
    assert all(run["outcome"] == "ok" for body, run in runs.items() if body != "W3C")
    # 2dcontext2 was never recorded: a non-fatal error, so W3C's run is partial, not ok
    assert (runs["W3C"]["outcome"], runs["W3C"]["error_count"]) == ("partial", len(runs["W3C"]["errors"]))
    assert runs["W3C"]["errors"]
    pointer = IndexStore().read_pointer()
    assert pointer is not None and pointer.version == summary["version"]
    assert pointer.bodies["IETF"].records == 305
    # The index it uploaded is what the standards function reads.
    catalogue = service.holder().get()
    assert catalogue is not None
    assert catalogue.resolve("ISO 27001").record.identifier == "ISO/IEC 27001:2022"
    assert catalogue.resolve("rfc0003").record.superseded_by == ["RFC 10"]


def test_an_unchanged_upstream_is_not_downloaded_again_and_no_version_is_published(standards_aws):
    first = handle_sync_event(SCHEDULED_EVENT)
    standards_aws.requests.clear()
    second = handle_sync_event(SCHEDULED_EVENT)
    runs = _runs_by_body(second)
    assert second["published"] is False, [
        (r["body"], r["outcome"], r["added"], r["updated"], r["withdrawn"]) for r in second["runs"]
    ]
    assert second["version"] == first["version"]
    assert {b: r["outcome"] for b, r in runs.items() if b != "W3C"} == {b: "unchanged" for b in BODIES if b != "W3C"}
    assert runs["IETF"]["unchanged"] == 305
    assert "GET /nist/CSRC/media/feeds/metanorma/pubs-export.zip" not in standards_aws.requests
    assert not any("/data/" in r for r in standards_aws.requests)  # no Relaton document fetched twice


def test_a_failing_body_keeps_its_last_good_data(standards_aws):
    handle_sync_event(SCHEDULED_EVENT)
    standards_aws.overrides["nist_meta"] = httpx.Response(500, text="Service Unavailable")
    standards_aws.overrides["github_head_ISO"] = httpx.Response(503, text="busy")
    standards_aws.overrides["relaton_index_ISO"] = httpx.Response(200, text="<html>maintenance</html>")
    summary = handle_sync_event({"bodies": ["NIST", "ISO", "IETF"]})
    runs = _runs_by_body(summary)
    assert runs["NIST"]["outcome"] == "failed" and runs["NIST"]["errors"]
    assert runs["ISO"]["outcome"] == "failed"
    assert runs["NIST"]["unchanged"] == 839
    service.holder().reset()
    catalogue = service.holder().get()
    assert catalogue.resolve("NIST SP 800-53").record.status == "current"
    assert catalogue.resolve("ISO 9001:2008").record.status == "withdrawn"


def test_a_run_that_would_withdraw_more_than_half_a_body_is_aborted(standards_aws):
    handle_sync_event(SCHEDULED_EVENT)
    full = standards_aws.rfc_index
    # Keep only the first 40 top-level entries: the upstream suddenly lists far fewer documents.
    cut = full.index(b"<bcp-entry>\n    <doc-id>BCP41</doc-id>")
    standards_aws.rfc_index = full[:cut] + b"</rfc-index>\n"
    standards_aws.overrides["rfc_index"] = httpx.Response(200, content=standards_aws.rfc_index)
    summary = handle_sync_event({"bodies": ["IETF"]})
    run = _runs_by_body(summary)["IETF"]
    assert run["outcome"] == "aborted"
    assert "would withdraw" in run["errors"][-1]
    assert IndexStore().read_body("IETF").records.__len__() == 305


def test_sync_runs_are_recorded_for_get_sync_status(standards_aws):
    handle_sync_event(SCHEDULED_EVENT)
    runs = {run.body: run for run in latest_runs()}
    assert set(runs) == set(BODIES)
    assert runs["ISO"].added == 12 and runs["ISO"].finished_at >= runs["ISO"].started_at
    assert runs["IETF"].upstream_ref


def test_relaton_documents_are_fetched_in_bounded_batches_when_github_does_not_answer(standards_aws):
    standards_aws.overrides["github_head_ISO"] = httpx.Response(403, json={"message": "API rate limit exceeded"})
    # First run: at most 5 documents of ISO; the rest stay pending and the next run continues.
    report = asyncio.run(run_sync(("ISO",), limits=Limits(max_documents=5)))
    assert report.runs[0].added == 5
    state = IndexStore().read_body("ISO")
    assert state.validators["pending"] == 7
    report = asyncio.run(run_sync(("ISO",), limits=Limits(max_documents=100)))
    assert (report.runs[0].added, report.runs[0].unchanged) == (7, 5)
    assert IndexStore().read_body("ISO").validators["pending"] == 0


def test_a_relaton_body_is_loaded_from_one_repository_archive(standards_aws):
    report = asyncio.run(run_sync(("ISO",)))
    assert (report.runs[0].added, report.runs[0].upstream_ref) == (12, standards_aws.heads["ISO"])
    assert not any("/relaton/relaton/" in r for r in standards_aws.requests)  # no per-document fetches
    standards_aws.requests.clear()
    again = asyncio.run(run_sync(("ISO",)))
    assert again.runs[0].outcome == "unchanged"
    assert not any("zipball" in r for r in standards_aws.requests)  # same head commit: nothing downloaded


def test_a_changed_document_is_seen_when_the_head_commit_moves(standards_aws, upstream_dir):
    asyncio.run(run_sync(("ISO",)))
    # The 2015 edition is withdrawn upstream: same file, same index, new commit.
    changed = yaml.safe_load((upstream_dir / "relaton_iso" / "iso-9001-2015.yaml").read_text(encoding="utf-8"))
    changed["docstatus"] = {"stage": {"value": "95"}, "substage": {"value": "99"}}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # SYNTHETIC archive: the recorded files, one of them edited
        for path in relaton_files(upstream_dir, "relaton_iso"):
            content = yaml.safe_dump(changed) if path.name == "iso-9001-2015.yaml" else path.read_text(encoding="utf-8")
            archive.writestr(f"relaton-data-iso-2/data/{path.name}", content)
    standards_aws.heads["ISO"] = "iso0000000000000000000000000000000000002"
    standards_aws.overrides["github_zipball_ISO"] = httpx.Response(200, content=buffer.getvalue())
    run = asyncio.run(run_sync(("ISO",))).runs[0]
    assert (run.outcome, run.updated, run.withdrawn, run.unchanged) == ("ok", 1, 1, 11)
    assert IndexStore().read_body("ISO").upstream_ref == standards_aws.heads["ISO"]


def test_a_w3c_run_out_of_time_keeps_what_it_did_not_reach(standards_aws):
    asyncio.run(run_sync(("W3C",)))
    before = {r.id for r in IndexStore().read_body("W3C").records}
    # A run whose deadline has passed reads the first list page and nothing more.
    report = asyncio.run(run_sync(("W3C",), limits=Limits(deadline=0.0)))
    run = report.runs[0]
    assert run.withdrawn == 0
    assert any("continues next run" in e for e in run.errors)
    assert {r.id for r in IndexStore().read_body("W3C").records} == before


def _w3c_list_requests(requests: list[str]) -> int:
    return sum(r == "GET /w3c/specifications" for r in requests)


def test_w3c_paging_stops_at_the_listings_page_count(standards_aws, upstream_dir):
    # The recorded first page says pages=833; told pages=1 it is the last page, whatever its next link says.
    page = json.loads((upstream_dir / "w3c" / "specifications_items-2_page-1.json").read_bytes())
    page["pages"] = 1
    standards_aws.overrides["w3c_list"] = httpx.Response(200, json=page)
    asyncio.run(run_sync(("W3C",)))
    assert _w3c_list_requests(standards_aws.requests) == 1


def test_w3c_paging_stops_on_a_repeated_page(standards_aws, upstream_dir):
    # Every page number answers the recorded first page (with its next link): the second request is a repeat.
    page = (upstream_dir / "w3c" / "specifications_items-2_page-1.json").read_bytes()
    standards_aws.overrides["w3c_list"] = httpx.Response(200, content=page)
    run = asyncio.run(run_sync(("W3C",))).runs[0]
    assert _w3c_list_requests(standards_aws.requests) == 2
    assert any("repeated a page" in e for e in run.errors)


def test_the_per_document_fallback_stops_after_failures_in_a_row_and_the_run_is_not_ok(standards_aws):
    # Given no repository archive and every data file answering 404 (a cold run would ask each one)
    standards_aws.overrides["github_head_ISO"] = httpx.Response(403, json={"message": "API rate limit exceeded"})
    standards_aws.overrides["relaton_doc"] = httpx.Response(404, text="404: Not Found")
    run = asyncio.run(run_sync(("ISO",), limits=Limits(max_fallback_misses=3))).runs[0]
    # Then it stops after 3 misses, and errors with nothing added are a failed run
    assert sum("/relaton/relaton/relaton-data-iso/main/data/" in r for r in standards_aws.requests) == 3
    assert (run.outcome, run.added) == ("failed", 0)
    assert any("in a row failed" in e for e in run.errors)


def test_the_per_document_fallback_is_bounded_per_run(standards_aws):
    standards_aws.overrides["github_head_ISO"] = httpx.Response(403, json={"message": "API rate limit exceeded"})
    run = asyncio.run(run_sync(("ISO",), limits=Limits(max_fallback_documents=4))).runs[0]
    assert run.added == 4
    assert IndexStore().read_body("ISO").validators["pending"] == 8


def test_sync_status_keeps_the_error_count_and_a_few_distinct_samples(standards_aws):
    standards_aws.overrides["github_head_ISO"] = httpx.Response(403, json={"message": "API rate limit exceeded"})
    standards_aws.overrides["relaton_doc"] = httpx.Response(404, text="404: Not Found")
    asyncio.run(run_sync(("ISO",), limits=Limits(max_fallback_misses=100)))
    (run,) = [r for r in latest_runs() if r.body == "ISO"]
    assert run.error_count == 13  # the archive, then the 12 data files
    assert len(run.errors) == 5 and len(set(run.errors)) == 5
