"""fetch_patent_pdf: images inquiry → every page once → one stored PDF; Markdown; the pipeline steps."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx
import pypdfium2 as pdfium
import pytest

from scholar.core.catalogue import CallContext
from scholar.core.errors import NOT_FOUND, UPSTREAM_ERROR, ScholarError, UpstreamError
from scholar.core.patent_numbers import parse_patent_number
from scholar.families.patents import pdf, pdf_pipeline
from scholar.families.patents.handlers import fetch_patent_pdf
from scholar.families.patents.pdf_jobs import PatentPdfJob
from scholar.families.patents.spec import FetchPatentPdfInput
from scholar.store.tasks import TaskItem, TaskStore
from tests.patents.helpers import OPS, XML, ops_fixture, run, synthetic_pages

IMAGES = f"{OPS}/published-data/publication/docdb/EP.3491801.B1/images"
PAGES = f"{OPS}/published-data/images/EP/3491801/B1/fullimage.pdf"


def serve_pages(ops) -> object:
    pages = synthetic_pages(12)
    return ops.get(PAGES).mock(side_effect=lambda request: httpx.Response(
        200, content=pages[(int(request.url.params["Range"]) - 1) % len(pages)],
        headers={"Content-Type": "application/pdf"}))


def test_the_recorded_inquiries_name_the_full_document_and_its_pages():
    ep = pdf.parse_inquiry(ops_fixture("images_inquiry_EP3491801B1.xml"))
    wo = pdf.parse_inquiry(ops_fixture("images_inquiry_WO2019016210A1.xml"))
    assert (ep.link, ep.pages) == ("published-data/images/EP/3491801/B1/fullimage", 21)
    assert (wo.link, wo.pages) == ("published-data/images/WO/2019016210/A1/fullimage", 29)
    assert "application/pdf" in ep.formats


def test_each_page_path_segment_is_encoded():
    assert pdf.page_path("published-data/images/EP/3491801/B1/fullimage") == PAGES.removeprefix("/epo_ops")
    assert "/..%252F../" in pdf.page_path("published-data/images/EP/..%2F../B1/fullimage")
    with pytest.raises(UpstreamError):
        pdf.page_path("published-data/images/EP/../../auth/accesstoken")


def test_every_page_is_fetched_once_in_order_and_assembled_into_one_pdf(ops):
    ops.get(IMAGES).respond(200, content=ops_fixture("images_inquiry_EP3491801B1.xml"), headers=XML)
    pages = serve_pages(ops)
    progress: list[tuple[int, int]] = []

    instance = run(pdf.inquire, parse_patent_number("EP3491801B1"))
    data = pdf.assemble(run(pdf.fetch_pages, instance, lambda done, total: progress.append((done, total))))

    assert [call.request.url.params["Range"] for call in pages.calls] == [str(n) for n in range(1, 22)]
    assert progress[-1] == (21, 21) and len(progress) == 21
    assert len(pdfium.PdfDocument(data)) == 21


def test_a_document_without_images_is_pdf_not_available(ops):
    ops.get(url__regex=rf"{OPS}/published-data/publication/docdb/.+/images").respond(
        404, content=ops_fixture("error_404_fault_entity_not_found.xml"), headers=XML)
    with pytest.raises(ScholarError) as caught:
        run(pdf.inquire, parse_patent_number("WO2019016210A1"))
    assert caught.value.code == NOT_FOUND and caught.value.reason == pdf.PDF_NOT_AVAILABLE


def test_a_page_that_is_not_a_pdf_fails_the_fetch(ops):
    ops.get(IMAGES).respond(200, content=ops_fixture("images_inquiry_EP3491801B1.xml"), headers=XML)
    ops.get(PAGES).respond(200, content=ops_fixture("image_EP2400812A1_thumbnail_p1.tiff"),
                           headers={"Content-Type": "image/tiff"})
    instance = run(pdf.inquire, parse_patent_number("EP3491801B1"))
    with pytest.raises(UpstreamError) as caught:
        run(pdf.fetch_pages, instance, lambda done, total: None)
    assert (caught.value.code, caught.value.source) == (UPSTREAM_ERROR, "epo_ops")


def test_markdown_comes_from_ops_full_text_where_ops_has_it(ops):
    base = f"{OPS}/published-data/publication/docdb/EP.2400812.A1"
    ops.get(f"{base}/claims").respond(200, content=ops_fixture("claims_EP2400812A1.xml"), headers=XML)
    ops.get(f"{base}/description").respond(200, content=ops_fixture("description_EP2400812A1.xml"), headers=XML)
    text = run(pdf.fulltext_markdown, parse_patent_number("EP2400812A1"), "BLUETOOTH NETWORKING")
    assert text.startswith("# BLUETOOTH NETWORKING\n\n## Claims\n\n1. A communication device")
    assert "\n## Description\n\nField" in text


def _task(task_id: str) -> None:
    TaskStore().create(TaskItem(task_id=task_id, principal="p", tool="fetch_patent_pdf", expires_at=2**31))


def test_the_steps_store_one_content_addressed_pdf_with_markdown_and_complete_the_task(aws, ops):
    ops.get(IMAGES).respond(200, content=ops_fixture("images_inquiry_EP3491801B1.xml"), headers=XML)
    pages = serve_pages(ops)
    ops.get(url__regex=rf"{OPS}/published-data/publication/docdb/EP.3491801.B1/(claims|description)").respond(
        404, content=ops_fixture("error_404_fault_entity_not_found.xml"), headers=XML)
    _task("t1")
    job = PatentPdfJob(country="EP", number="3491801", kind="B1", max_chars=2000).model_dump()
    event = {"task_id": "t1", "job": job}

    fetched = pdf_pipeline.fetch(event)
    converted = pdf_pipeline.markdown({**event, "fetched": fetched})
    pdf_pipeline.finish({**event, "fetched": fetched, "converted": converted, "failure": {}})

    sha = fetched["pdf"]["pdf_sha256"]
    stored = aws.s3.get_object(Bucket=aws.bucket, Key=f"pdfs/{sha}.pdf")["Body"].read()
    assert hashlib.sha256(stored).hexdigest() == sha and len(pdfium.PdfDocument(stored)) == 21
    assert pages.call_count == 21 and converted["markdown_source"] == "builtin"
    task = TaskStore().get("t1", "p")
    assert task.status == "completed" and task.progress == "done"
    assert task.result["pdf_path"] == f"pdfs/{sha}.pdf" and task.result["pages"] == 21
    assert task.result["markdown"] and len(task.result["markdown"]) <= 2000

    # A second call answers at once from the stored artifacts: no task, no OPS request.
    before = len(ops.calls)
    answer = run(fetch_patent_pdf, FetchPatentPdfInput(patent_number="EP 3491801 B1", max_chars=2000),
                 CallContext(principal="p", request_id="r"))
    assert answer.cached and answer.pdf_path == f"pdfs/{sha}.pdf" and len(ops.calls) == before


def test_no_full_document_fails_the_task_with_pdf_not_available(aws, ops):
    ops.get(url__regex=rf"{OPS}/published-data/publication/docdb/.+/images").respond(
        404, content=ops_fixture("error_404_fault_entity_not_found.xml"), headers=XML)
    _task("t2")
    event = {"task_id": "t2", "job": PatentPdfJob(country="WO", number="2019016210", kind="A1").model_dump()}
    fetched = pdf_pipeline.fetch(event)
    assert fetched["pdf"] is None and fetched["error"]["reason"] == pdf.PDF_NOT_AVAILABLE
    pdf_pipeline.finish({**event, "fetched": fetched, "converted": {}, "failure": {}})
    task = TaskStore().get("t2", "p")
    assert task.status == "failed" and task.error["reason"] == pdf.PDF_NOT_AVAILABLE


def test_a_throttled_page_raises_so_the_machine_retries(aws, ops):
    ops.get(IMAGES).respond(200, content=ops_fixture("images_inquiry_EP3491801B1.xml"), headers=XML)
    ops.get(PAGES).respond(403, content=ops_fixture("error_403_fair_use_rejected.xml"), headers=XML)
    _task("t3")
    with pytest.raises(pdf_pipeline.StepError):
        job = PatentPdfJob(country="EP", number="3491801", kind="B1").model_dump()
        pdf_pipeline.fetch({"task_id": "t3", "job": job})


def test_the_function_exposes_every_machine_step_without_importing_pdfium_for_tool_calls():
    from scholar.families.patents.handlers import ACTIONS

    assert set(ACTIONS) == set(pdf_pipeline.ACTIONS)
    machine = Path(__file__).resolve().parents[2] / "shared/scholar/statemachines/patent_pdf.asl.json"
    assert {f'"action": "{name}"' in machine.read_text() for name in ACTIONS} == {True}
