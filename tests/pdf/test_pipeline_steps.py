"""The pipeline's steps called directly (moto tables, respx upstreams): what each returns, raises and records."""

from __future__ import annotations

import json
import time

import pytest
import respx

from scholar.services.fulltext.models import Job
from scholar.services.pipeline import StepError, download, finish, resolve
from scholar.store.tasks import TaskItem, TaskStore
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env
from tests.fixtures_dir import read_fixture

JOB = Job(kind="paper", tool="fetch_paper_pdf", identifier="doi:10.1234/x", s2_key="DOI:10.1234/x", convert=False)


def _task(task_id: str = "pdftest0001") -> str:
    TaskStore().create(TaskItem(task_id=task_id, principal="key-1", tool=JOB.tool, expires_at=int(time.time()) + 60))
    return task_id


def _event(task_id: str, **parts: object) -> dict:
    return {"task_id": task_id, "job": JOB.model_dump(mode="json"), **parts}


def test_a_throttled_source_raises_a_step_error_carrying_the_envelope(
    aws: AwsResources, upstream: respx.MockRouter, env: Env
) -> None:
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get("/s2/graph/v1/paper/DOI:10.1234/x").respond(429, json={"message": "Too Many Requests"})
    with pytest.raises(StepError) as raised:
        resolve(_event(_task()))
    assert json.loads(str(raised.value))["code"] == "rate_limited"


def test_an_unknown_paper_is_returned_as_an_error_not_raised(aws: AwsResources, upstream: respx.MockRouter) -> None:
    upstream.get("/s2/graph/v1/paper/0123456789abcdef0123456789abcdef01234567").respond(
        404, content=read_fixture("upstream/semantic_scholar/paper_not_found_404.json")
    )
    job = Job(kind="paper", tool="fetch_paper_pdf", identifier="s2:0123456789abcdef0123456789abcdef01234567",
              s2_key="0123456789abcdef0123456789abcdef01234567")
    out = resolve({"task_id": _task(), "job": job.model_dump(mode="json")})
    assert out["error"]["code"] == "not_found"


def test_finish_after_an_exhausted_retry_fails_the_task_with_the_step_s_error(aws: AwsResources) -> None:
    task_id = _task()
    envelope = {"code": "rate_limited", "message": "S2 is throttling", "retryable": True}
    cause = json.dumps({"errorMessage": json.dumps(envelope), "errorType": "StepError"})
    assert finish(_event(task_id, failure={"Error": "StepError", "Cause": cause})) == {
        "recorded": True,
        "status": "failed",
    }
    task = TaskStore().get(task_id, "key-1")
    assert task.status == "failed" and task.error == envelope


def test_finish_with_an_unreadable_cause_records_an_internal_error_without_the_cause(aws: AwsResources) -> None:
    task_id = _task()
    finish(_event(task_id, failure={"Error": "RuntimeError", "Cause": "Traceback: secret detail"}))
    task = TaskStore().get(task_id, "key-1")
    assert task.error["code"] == "internal"
    assert "secret" not in task.error["message"]


def test_no_candidate_at_all_is_no_oa_pdf_and_the_task_fails_keeping_the_metadata(aws: AwsResources) -> None:
    task_id = _task()
    resolved = {"metadata": {"title": "A paper", "doi": "10.1234/x"}, "candidates": [], "error": None}
    downloaded = download(_event(task_id, resolved=resolved))
    assert downloaded["pdf"] is None and downloaded["error"]["reason"] == "no_oa_pdf"
    finish(_event(task_id, resolved=resolved, downloaded=downloaded))
    task = TaskStore().get(task_id, "key-1")
    assert task.status == "failed" and task.result is None
    assert (task.error["code"], task.error["reason"], task.error["retryable"]) == ("not_found", "no_oa_pdf", False)
    assert task.error["details"]["metadata"]["title"] == "A paper"


def test_no_candidate_while_a_source_failed_is_a_retryable_error_naming_it_not_no_oa_pdf(aws: AwsResources) -> None:
    # Europe PMC and Unpaywall failed during resolve: "no open-access PDF" would be a guess.
    task_id = _task()
    failed = [
        {"source": "europepmc", "code": "upstream_error", "status": 503, "message": "europepmc answered 503"},
        {"source": "unpaywall", "code": "rate_limited", "status": 429, "message": "unpaywall is throttling"},
    ]
    resolved = {"metadata": {"title": "A paper"}, "candidates": [], "failed_sources": failed, "error": None}
    downloaded = download(_event(task_id, resolved=resolved))
    finish(_event(task_id, resolved=resolved, downloaded=downloaded))
    task = TaskStore().get(task_id, "key-1")
    assert task.status == "failed"
    assert (task.error["code"], task.error["retryable"]) == ("rate_limited", True)
    assert [f["source"] for f in task.error["details"]["failed_sources"]] == ["europepmc", "unpaywall"]


def test_a_pdf_found_despite_a_failed_source_completes_and_names_the_source(aws: AwsResources) -> None:
    task_id = _task()
    failed = [{"source": "europepmc", "code": "upstream_error", "status": 503, "message": "europepmc answered 503"}]
    resolved = {"metadata": {"title": "A paper"}, "failed_sources": failed, "error": None}
    pdf = {"pdf_path": f"pdfs/{'a' * 64}.pdf", "sha256": "a" * 64, "size_bytes": 10, "pdf_source": "arxiv",
           "source_url": "https://arxiv.org/pdf/2101.00001"}
    finish(_event(task_id, resolved=resolved, downloaded={"pdf": pdf, "attempts": []}))
    task = TaskStore().get(task_id, "key-1")
    assert task.status == "completed" and "error" not in task.result
    assert task.result["failed_sources"] == failed


def test_finish_does_not_overwrite_a_cancelled_task(aws: AwsResources) -> None:
    task_id = _task()
    TaskStore().transition(task_id, "cancelled", allowed_from=("pending",))
    assert finish(_event(task_id, resolved={"metadata": {"title": "x"}})) == {"recorded": False}
    assert TaskStore().get(task_id, "key-1").status == "cancelled"
