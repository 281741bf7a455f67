"""statemachines/pdf_pipeline.asl.json executed by moto, with the real pdf and pipeline handlers in-process.

The recorded S2 / Unpaywall / OpenAlex / Europe PMC answers come from the fake upstream (DESIGN §10). PDF
locations on hosts we do not call as sources (www.pnas.org, europepmc.org …) are reached through
``tests.fakes.web.WebToFake``: the SSRF guard still vets them (a fake resolver answers a public address, no
socket opens to it) and the request is then carried to the fake upstream under ``/web/<host>/<path>``. The real PDFs of
../shared/fixtures/pdfs are served there. A wrapper around the pipeline handler can fail or hold a step,
for the retry and cancellation scenarios. Waits are polls with a deadline, never sleeps.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import boto3
import pytest

from scholar.runtime.invocation import Invocation, Outcome
from scholar.runtime.invoke import invoke_family
from scholar.services.fulltext.artifacts import paper_cache_key
from scholar.services.pdftext import convert as converter
from scholar.store.cache import Cache
from scholar.store.tasks import TaskItem, TaskStore
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.servers import StackOptions, fake_fixture, fake_upstream_fixture, local_server_fixture
from tests.fixtures.waiting import execution_status, finished_task
from tests.fixtures_dir import fixtures_dir

DEADLINE_S = 30.0
PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_PDF_PATH = "/www.pnas.org/content/pnas/111/45/E4832.full.pdf"
PMC_PATH = "/europepmc.org/articles/PMC4234579"
BLOCK_PAGE = b"<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking</body></html>"


def pdf_fixture(name: str) -> Path:
    return fixtures_dir() / "pdfs" / name


class Steps:
    """The real pipeline handler, with scripted failures and holds for chosen jobs."""

    def __init__(self) -> None:
        self.calls: Counter[tuple[str, str]] = Counter()
        self.fail_convert: dict[str, int] = {}  # pdf sha256 → how many convert calls raise
        self.hold_download: dict[str, threading.Event] = {}  # url substring → released when set
        self.entered: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def __call__(self, event: dict[str, Any], context: Any) -> Any:
        from functions.pipeline.app import lambda_handler

        action, job = event.get("action", ""), event.get("job") or {}
        target = job.get("pdf_path") or job.get("url") or job.get("identifier") or ""
        with self._lock:
            self.calls[(action, target)] += 1
        sha = (job.get("pdf_path") or "").removeprefix("pdfs/").removesuffix(".pdf")
        if action == "convert" and self.fail_convert.get(sha, 0) > 0:
            self.fail_convert[sha] -= 1
            raise RuntimeError("the converter crashed")
        if action == "download":
            for marker, release in self.hold_download.items():
                if marker in target:
                    self.entered[marker].set()
                    assert release.wait(DEADLINE_S)
        return lambda_handler(event, context)


fake = fake_upstream_fixture(scope="module", name="fake")


@pytest.fixture(scope="module")
def steps() -> Steps:
    return Steps()


stack = local_server_fixture(
    StackOptions(upstream="fake", serve_http=False, web=True, contact_email="pipeline-tests@example.org",
                 retry_budget_s="0", retry_wait_s=None, handlers={"PipelineFunction": "steps"}),
    scope="module", name="stack")
routes = fake_fixture(upstream="fake", name="routes")


def call(tool: str, arguments: dict[str, Any], principal: str = "key-1") -> Outcome:
    return invoke_family("pdf", Invocation(tool=tool, arguments=arguments, principal=principal, request_id="r"))


def wait_task(task_id: str, principal: str = "key-1") -> TaskItem:
    return finished_task(task_id, principal, within_s=DEADLINE_S)


def queued_task(outcome: Outcome) -> str:
    assert outcome.ok, outcome.error
    assert outcome.result and outcome.result["queued"] is True, outcome.result
    return outcome.result["task_id"]


def run(tool: str, arguments: dict[str, Any], principal: str = "key-1") -> TaskItem:
    return wait_task(queued_task(call(tool, arguments, principal)), principal)


def test_an_html_block_page_is_rejected_and_the_next_candidate_gives_the_pdf(stack: Any, routes: FakeUpstream) -> None:
    # Given the publisher answers a block page with status 200 and Europe PMC serves the real PDF
    routes.add_route("GET", "web", PNAS_PDF_PATH, body=BLOCK_PAGE, content_type="text/html; charset=utf-8")
    routes.add_route("GET", "web", PMC_PATH, body=pdf_fixture("arxiv_2305.03393v1_page9_only.pdf"))
    # When the paper is fetched and converted
    task = run("fetch_and_convert", {"identifier": PNAS_DOI, "max_chars": 2000})
    # Then the PDF comes from PMC, the block page is named as the reason the first candidate failed
    assert task.status == "completed", task.error
    result = task.result
    assert "error" not in result and result["failed_sources"] == []
    assert result["pdf_source"] == "pmc"
    assert [(a["source"], a["ok"], a["reason"]) for a in result["attempts"]] == [
        ("s2_oa", False, "html_page"),
        ("pmc", True, None),
    ]
    sha = hashlib.sha256(pdf_fixture("arxiv_2305.03393v1_page9_only.pdf").read_bytes()).hexdigest()
    assert result["pdf_path"] == f"pdfs/{sha}.pdf"
    assert result["md_path"] == f"md/{sha}.md"
    assert result["metadata"]["doi"] == PNAS_DOI
    assert result["markdown"].startswith("<!-- page 1 -->")
    assert len(result["markdown"]) <= 2000 and result["next_offset"] == 2000
    assert result["pdf_url"].startswith("http")
    assert (task.progress or "") == "done"

    # And the same call again answers at once from the stored artifacts, paged on
    again = call("fetch_and_convert", {"identifier": f"https://doi.org/{PNAS_DOI}", "offset": 2000, "max_chars": 1000})
    assert again.ok and again.result["cached"] is True
    assert again.result["offset"] == 2000 and again.result["markdown"]
    assert again.result["pdf_source"] == "pmc"


def test_an_arxiv_pdf_is_fetched_through_the_arxiv_source(stack: Any, routes: FakeUpstream) -> None:
    routes.add_route("GET", "s2", "/graph/v1/paper/ARXIV:2312.07559",
                     body=fixtures_dir() / "upstream/semantic_scholar/paper_by_arxiv_doi.json")
    routes.add_route("GET", "arxiv", "/pdf/2312.07559", body=pdf_fixture("arxiv_2304.02623v1_beyond_summarization.pdf"))
    task = run("fetch_paper_pdf", {"identifier": "arXiv:2312.07559"})
    assert task.status == "completed", task.error
    assert task.result["pdf_source"] == "arxiv"
    assert task.result["metadata"]["title"].startswith("PaperQA")
    assert task.result.get("md_path") is None  # fetch_paper_pdf does not convert
    assert routes.count("arxiv", "/pdf/2312.07559") == 1


def test_when_every_location_answers_404_the_task_fails_not_found_keeping_the_metadata(
    stack: Any, routes: FakeUpstream
) -> None:
    # Given no stored PDF for the paper, and no web route: every PDF location answers 404
    Cache().delete("result", paper_cache_key(f"doi:{PNAS_DOI}"))
    task = run("fetch_paper_pdf", {"identifier": f"DOI:{PNAS_DOI.upper()}"}, principal="key-nothing")
    # Then every source answered and none had it: not_found, not retryable, the task failed (no answer inside)
    assert task.status == "failed" and task.result is None
    error = task.error
    assert (error["code"], error["reason"], error["retryable"]) == ("not_found", "download_failed", False)
    assert error["details"]["metadata"]["title"].startswith("Developing functional")
    assert [a["source"] for a in error["details"]["attempts"]] == ["s2_oa", "pmc", "openalex"]
    assert all(a["ok"] is False and a["reason"] for a in error["details"]["attempts"])


def test_a_throttled_pdf_location_makes_the_task_fail_retryable_naming_it_not_not_found(
    stack: Any, routes: FakeUpstream
) -> None:
    # Given Europe PMC's PDF host throttles (429) and the other locations answer 404
    Cache().delete("result", paper_cache_key(f"doi:{PNAS_DOI}"))
    routes.inject("web", "/europepmc.org/", status=429, times=None)
    task = run("fetch_paper_pdf", {"identifier": PNAS_DOI}, principal="key-throttled")
    # Then the PDF may well exist: rate_limited, retryable, and the failing location is named
    assert task.status == "failed"
    error = task.error
    assert (error["code"], error["reason"], error["retryable"]) == ("rate_limited", "sources_failed", True)
    assert [(f["source"], f["code"], f.get("status")) for f in error["details"]["failed_sources"]] == [
        ("pmc", "rate_limited", 429)
    ]
    # And once the fault clears, the same call finds the PDF (nothing bad was remembered)
    routes.reset()
    routes.add_route("GET", "web", PMC_PATH, body=pdf_fixture("arxiv_2305.03393v1_page9_only.pdf"))
    again = run("fetch_paper_pdf", {"identifier": PNAS_DOI}, principal="key-throttled")
    assert again.status == "completed", again.error
    assert again.result["pdf_source"] == "pmc"


def test_a_truncated_pdf_is_never_stored_and_the_task_fails_retryable(stack: Any, routes: FakeUpstream) -> None:
    # Given the only PDF location serves the first half of a real PDF (its length matching what it sends)
    whole = pdf_fixture("arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf").read_bytes()
    routes.add_route("GET", "web", "/files.example.org/cut.pdf", body=whole[: len(whole) // 2])
    task = run("fetch_pdf_by_url", {"url": "https://files.example.org/cut.pdf", "convert": False})
    # Then the candidate failed as a damaged PDF, retryable, and no object was stored
    assert task.status == "failed"
    assert (task.error["code"], task.error["reason"], task.error["retryable"]) == (
        "upstream_error", "damaged_pdf", True,
    )
    bucket = stack.env["SCHOLAR_ARTIFACT_BUCKET"]
    half_sha = hashlib.sha256(whole[: len(whole) // 2]).hexdigest()
    assert boto3.client("s3").list_objects_v2(Bucket=bucket, Prefix=f"pdfs/{half_sha}")["KeyCount"] == 0
    # And the next call is not answered from a cache: once the file is whole, it is stored
    routes.reset()
    routes.add_route("GET", "web", "/files.example.org/cut.pdf", body=whole)
    again = run("fetch_pdf_by_url", {"url": "https://files.example.org/cut.pdf", "convert": False})
    assert again.status == "completed", again.error
    assert again.result["sha256"] == hashlib.sha256(whole).hexdigest()


def test_an_unknown_paper_fails_the_task_with_not_found(stack: Any, routes: FakeUpstream) -> None:
    task = run("fetch_paper_pdf", {"identifier": "0123456789abcdef0123456789abcdef01234567"})
    assert task.status == "failed"
    assert task.error["code"] == "not_found"


def test_an_encrypted_pdf_gives_pdf_extraction_failed_not_empty_markdown(stack: Any, routes: FakeUpstream) -> None:
    routes.add_route("GET", "web", "/files.example.org/locked.pdf",
                     body=pdf_fixture("encrypted_user_password_2206.01062_page3.pdf"))
    task = run("fetch_pdf_by_url", {"url": "https://files.example.org/locked.pdf"})
    # The PDF is whole (kept, and named in the error), but the job's Markdown could not be made: failed
    assert task.status == "failed" and task.result is None
    assert task.error["reason"] == "pdf_extraction_failed"
    assert task.error["details"]["cause"] == "encrypted"
    assert task.error["details"]["pdf"]["pdf_source"] == "url"
    assert task.error["details"]["pdf"]["pdf_path"].startswith("pdfs/")


def test_an_image_only_pdf_gives_pdf_extraction_failed_where_no_ocr_engine_is_installed(
    stack: Any, routes: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(converter, "ocr_engine", lambda: None)  # as in a Lambda: its layer has no Tesseract
    scan = pdf_fixture("scanned_image_only_two_column_page.pdf")
    routes.add_route("GET", "web", "/files.example.org/scan.pdf", body=scan)
    task = run("fetch_pdf_by_url", {"url": "https://files.example.org/scan.pdf"})
    assert task.status == "failed"
    assert task.error["reason"] == "pdf_extraction_failed"
    assert task.error["details"]["cause"] == "no_text_layer"


def _upload_fixture(stack: Any, name: str) -> str:
    data = pdf_fixture(name).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    boto3.client("s3").put_object(Bucket=stack.env["SCHOLAR_ARTIFACT_BUCKET"], Key=f"pdfs/{sha}.pdf", Body=data)
    return sha


def test_a_convert_step_that_keeps_failing_is_retried_then_recorded_as_failed(stack: Any, steps: Steps) -> None:
    sha = _upload_fixture(stack, "arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf")
    steps.fail_convert[sha] = 99
    task = run("convert_pdf_to_markdown", {"file_path": f"pdfs/{sha}.pdf"})
    assert task.status == "failed"
    assert task.error["code"] == "internal"
    assert "crashed" not in task.error["message"]  # the cause stays in the execution history
    assert steps.calls[("convert", f"pdfs/{sha}.pdf")] == 3  # one attempt and two retries


def test_a_convert_step_that_fails_once_succeeds_on_retry(stack: Any, steps: Steps) -> None:
    sha = _upload_fixture(stack, "arxiv_2501.10120v1_pasa.pdf")
    steps.fail_convert[sha] = 1
    task = run("convert_pdf_to_markdown", {"file_path": f"pdfs/{sha}.pdf", "max_chars": 5000})
    assert task.status == "completed", task.error
    assert task.result["md_path"] == f"md/{sha}.md"
    assert task.result["page_count"] == 15
    assert steps.calls[("convert", f"pdfs/{sha}.pdf")] == 2


def test_convert_accepts_only_artifact_references(stack: Any) -> None:
    outcome = call("convert_pdf_to_markdown", {"file_path": "/etc/passwd"})
    assert not outcome.ok
    assert outcome.error["code"] == "invalid_argument"
    missing = call("convert_pdf_to_markdown", {"file_path": f"pdfs/{'0' * 64}.pdf"})
    assert missing.error["code"] == "not_found"


def test_cancelling_stops_the_execution_and_the_task_stays_cancelled(
    stack: Any, steps: Steps, routes: FakeUpstream
) -> None:
    from scholar.services.fulltext.jobs import cancel_task

    pdf = pdf_fixture("arxiv_2305.03393v1_page9_only.pdf")
    routes.add_route("GET", "web", "/files.example.org/cancel-me.pdf", body=pdf)
    release, entered = threading.Event(), threading.Event()
    steps.hold_download["cancel-me"], steps.entered["cancel-me"] = release, entered
    task_id = queued_task(call("fetch_pdf_by_url", {"url": "https://files.example.org/cancel-me.pdf"}))
    assert entered.wait(DEADLINE_S)
    assert cancel_task(task_id, "key-1") is True
    release.set()
    assert execution_status(TaskStore().get(task_id, "key-1").execution_arn, within_s=DEADLINE_S) == "ABORTED"
    task = wait_task(task_id)
    assert task.status == "cancelled"  # the step that was running when stopped did not overwrite it
    assert steps.calls[("finish", "https://files.example.org/cancel-me.pdf")] == 0


def test_concurrent_requests_for_one_paper_start_one_execution_and_store_one_object(
    stack: Any, steps: Steps, routes: FakeUpstream
) -> None:
    pdf = pdf_fixture("arxiv_2304.02623v1_beyond_summarization.pdf")
    routes.add_route("GET", "web", "/files.example.org/same.pdf", body=pdf)
    url = "https://files.example.org/same.pdf"
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda _: call("fetch_pdf_by_url", {"url": url, "convert": False}), range(4)))
    task_ids = {queued_task(o) for o in outcomes}
    assert len(task_ids) == 1
    (task_id,) = task_ids
    task = wait_task(task_id)
    assert task.status == "completed", task.error
    executions = boto3.client("stepfunctions").list_executions(
        stateMachineArn=stack.env["SCHOLAR_PDF_STATE_MACHINE_ARN"]
    )["executions"]
    assert [e["name"] for e in executions].count(task_id) == 1
    assert steps.calls[("download", url)] == 1
    assert routes.count("web", "/files.example.org/same.pdf") == 1
    # Another caller gets its own task but the answer is already stored: one object in the bucket
    other = call("fetch_pdf_by_url", {"url": url, "convert": False}, principal="key-2")
    assert other.ok and other.result["cached"] is True
    bucket = stack.env["SCHOLAR_ARTIFACT_BUCKET"]
    objects = boto3.client("s3").list_objects_v2(Bucket=bucket, Prefix=task.result["pdf_path"])
    assert objects["KeyCount"] == 1
    assert json.dumps(task.result).count(task.result["sha256"]) >= 1


def test_with_docling_configured_the_markdown_comes_from_docling_and_is_stored_apart(
    stack: Any, routes: FakeUpstream, env: Any
) -> None:
    from tests.pdf.synthetic_docling import SYNTHETIC_RESULT_SUCCESS, TASK_ID, synthetic_task

    # Given a docling-serve (synthetic answers, see tests/pdf/synthetic_docling.py) and no VLM configured
    env(SCHOLAR_DOCLING_URL=f"{routes.base_url}/docling")
    answers = {
        ("POST", "/v1/convert/source/async"): synthetic_task("pending"),
        ("GET", f"/v1/status/poll/{TASK_ID}"): synthetic_task("success"),
        ("GET", f"/v1/result/{TASK_ID}"): SYNTHETIC_RESULT_SUCCESS,
    }
    for (method, path), answer in answers.items():
        routes.add_route(method, "docling", path, body=json.dumps(answer).encode(), content_type="application/json")
    routes.add_route("GET", "web", "/files.example.org/pasa.pdf", body=pdf_fixture("arxiv_2501.10120v1_pasa.pdf"))
    # When a PDF is fetched by URL with VLM asked for
    task = run("fetch_pdf_by_url", {"url": "https://files.example.org/pasa.pdf", "use_vlm": True})
    # Then docling's Markdown is stored under its own key, and the answer says why VLM was not used
    assert task.status == "completed", task.error
    result = task.result
    assert result["converter"] == "docling"
    assert result["md_path"] == f"md/{result['sha256']}.docling.md"
    assert result["markdown"] == SYNTHETIC_RESULT_SUCCESS["document"]["md_content"]
    assert result["vlm_used"] is False and result["vlm_skip_reason"] == "vlm_api_url_not_configured"
    (submit,) = [r for r in routes.requests if r.source == "docling" and r.method == "POST"]
    source = json.loads(submit.body)["sources"][0]
    assert source["kind"] == "http" and result["sha256"] in source["url"]  # docling fetches a presigned URL
