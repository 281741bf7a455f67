"""The PDF pipeline's steps (statemachines/pdf_pipeline.asl.json): resolve → download → convert → finish.

Each step is an action of the PipelineFunction (``{"action": "resolve", ...}``). A step returns a small JSON
document the state machine keeps under ``$.resolved`` / ``$.downloaded`` / ``$.converted``; a failure that
retrying cannot fix (no such paper, no PDF anywhere, an encrypted PDF) is *returned* as ``{"error": {...}}``,
while a transient one (throttling, an upstream 5xx, a crash) is *raised* as ``StepError`` so the state
machine's Retry applies, then its Catch hands ``$.failure`` to finish. ``finish`` is the one place a task
is completed or failed; partial results (metadata but no PDF, a PDF but no Markdown) complete the task with
``error`` set. Artifacts never travel through the state machine, only their keys.
"""

from __future__ import annotations

import json
import logging
import tempfile
import threading
import time
from typing import Any

from scholar.config import get_settings
from scholar.errors import ScholarError
from scholar.pdf import artifacts, docling, results
from scholar.pdftext.convert import convert_pdf
from scholar.pdf.fetch import fetch_candidate
from scholar.pdf.jobs import PDF_TASK_TTL_S
from scholar.pdf.models import Attempt, Candidate, ErrorInfo, Job, PaperSummary, StoredPdf
from scholar.pdf.resolve import resolve_paper
from scholar.runtime import aio
from scholar.store.tasks import ACTIVE, TaskStore, TaskTransitionError

logger = logging.getLogger(__name__)

NO_OA_PDF = "no_oa_pdf"
DOWNLOAD_FAILED = "download_failed"
# pdfium is not thread-safe, and the local stack runs steps on several threads.
_PDFIUM = threading.Lock()


class StepError(Exception):
    """A transient step failure; its message is the error envelope body as JSON (finish reads it back)."""

    def __init__(self, err: ScholarError) -> None:
        super().__init__(json.dumps(err.to_envelope()["error"]))


def _error(err: ScholarError) -> dict[str, Any]:
    return err.to_envelope()["error"]


def _fail_or_raise(err: ScholarError) -> dict[str, Any]:
    """A returned error for what retrying cannot fix; raise (Retry, then Catch) for the rest."""
    if err.retryable:
        raise StepError(err) from err
    return {"error": _error(err)}


def _progress(event: dict[str, Any], text: str) -> None:
    """Show what the task is doing (get_task_result's hint); a cancelled task stays cancelled."""
    try:
        TaskStore().transition(
            str(event["task_id"]),
            "running",
            allowed_from=ACTIVE,
            progress=text,
            execution_arn=event.get("execution_arn") or None,
        )
    except TaskTransitionError:
        logger.info("task %s is no longer active; progress not recorded", event["task_id"])


def resolve(event: dict[str, Any]) -> dict[str, Any]:
    """Metadata and candidate URLs (paper jobs), or the caller's URL as the only candidate (url jobs)."""
    job = Job.model_validate(event["job"])
    _progress(event, "resolving the paper and its open-access PDF locations")
    if job.kind == "url":
        found = artifacts.recall(artifacts.url_cache_key(job.url or ""))
        return {
            "candidates": [Candidate(source="url", url=job.url or "").model_dump()],
            "cached_pdf": found[1].model_dump() if found else None,
            "error": None,
        }
    found = artifacts.recall(artifacts.paper_cache_key(job.identifier or ""))
    if found is not None:
        return {
            "metadata": found[0].model_dump() if found[0] else None,
            "candidates": [],
            "cached_pdf": found[1].model_dump(),
            "error": None,
        }
    try:
        resolution = aio.run(resolve_paper(job.identifier or "", job.s2_key or ""))
    except ScholarError as err:
        return _fail_or_raise(err)
    return {**resolution.model_dump(mode="json"), "cached_pdf": None, "error": None}


async def _first_pdf(
    candidates: list[Candidate], event: dict[str, Any], dest: str
) -> tuple[StoredPdf | None, list[Attempt]]:
    attempts: list[Attempt] = []
    for number, candidate in enumerate(candidates, start=1):
        _progress(event, f"downloading the PDF: candidate {number} of {len(candidates)} ({candidate.source})")
        try:
            pdf = await fetch_candidate(candidate.url, trusted_routing=candidate.source != "url", dest_dir=dest)
        except ScholarError as err:
            attempts.append(
                Attempt(source=candidate.source, url=candidate.url, ok=False, code=err.code,
                        reason=err.reason or err.code, message=err.message[:300])
            )
            continue
        try:
            key = artifacts.store_pdf(pdf.path, pdf.sha256)
        finally:
            pdf.path.unlink(missing_ok=True)
        attempts.append(Attempt(source=candidate.source, url=candidate.url, ok=True))
        return StoredPdf(pdf_path=key, sha256=pdf.sha256, size_bytes=pdf.size, pdf_source=candidate.source,
                         source_url=candidate.url), attempts
    return None, attempts


def _download_error(job: Job, attempts: list[Attempt]) -> dict[str, Any]:
    if job.kind == "url":  # the caller's own URL: its rejection is the error
        (attempt,) = attempts
        return {"code": attempt.code or "upstream_error", "reason": attempt.reason, "retryable": False,
                "message": attempt.message or "the URL did not give a PDF"}
    return {"code": "not_found", "reason": DOWNLOAD_FAILED, "retryable": False,
            "message": f"none of the {len(attempts)} PDF locations gave a PDF (see attempts)",
            "recovery": {"hint": "If you know another PDF link, call fetch_pdf_by_url."}}


def download(event: dict[str, Any]) -> dict[str, Any]:
    """Try the candidates in order until one is a real PDF; store it and say which source answered."""
    job = Job.model_validate(event["job"])
    resolved = event.get("resolved") or {}
    if resolved.get("cached_pdf"):
        return {"pdf": resolved["cached_pdf"], "attempts": []}
    candidates = [Candidate.model_validate(c) for c in resolved.get("candidates") or []]
    if not candidates:
        error = {"code": "not_found", "reason": NO_OA_PDF, "retryable": False,
                 "message": "no open-access PDF location was found for this paper",
                 "recovery": {"hint": "If you know a PDF link (author page, repository), call fetch_pdf_by_url."}}
        return {"pdf": None, "attempts": [], "error": error}
    with tempfile.TemporaryDirectory(prefix="scholar-pdf-") as dest:
        stored, attempts = aio.run(_first_pdf(candidates, event, dest))
    dumped = [a.model_dump() for a in attempts]
    if stored is None:
        return {"pdf": None, "attempts": dumped, "error": _download_error(job, attempts)}
    if job.kind == "paper" and resolved.get("metadata"):
        artifacts.remember_paper(job.identifier or "", PaperSummary.model_validate(resolved["metadata"]), stored)
    elif job.kind == "url":
        artifacts.remember_url(job.url or "", stored)
    return {"pdf": stored.model_dump(), "attempts": dumped}


def _convert_builtin(pdf_path: str) -> str:
    with tempfile.TemporaryDirectory(prefix="scholar-convert-") as dest:
        local = artifacts.pdf_to_file(pdf_path, dest)
        with _PDFIUM:
            return convert_pdf(local).markdown


def convert(event: dict[str, Any]) -> dict[str, Any]:
    """Convert the stored PDF to Markdown (built-in, or docling-serve when configured) and store it."""
    job = Job.model_validate(event["job"])
    pdf_path = ((event.get("downloaded") or {}).get("pdf") or {}).get("pdf_path") or job.pdf_path or ""
    settings = get_settings()
    converter = results.converter_for(job.use_vlm, settings)
    md_path = artifacts.md_key(artifacts.sha_of(pdf_path), converter)
    if artifacts.exists(md_path):
        return {"md_path": md_path, "converter": converter}
    _progress(event, f"converting the PDF to Markdown ({converter}); usually 5-60 s")
    try:
        if converter == "builtin":
            markdown = _convert_builtin(pdf_path)
        else:
            vlm = docling.vlm_from_settings(settings) if converter == "docling_vlm" else None
            done = aio.run(docling.convert(settings, url=artifacts.presign(pdf_path), vlm=vlm))
            markdown = done.markdown
    except ScholarError as err:
        return _fail_or_raise(err)
    artifacts.put_markdown(md_path, markdown)
    return {"md_path": md_path, "converter": converter}


def _failure_error(failure: dict[str, Any]) -> dict[str, Any]:
    """The envelope body of a step that raised (Retry exhausted), from the Catch's Cause."""
    try:
        cause = json.loads(failure.get("Cause") or "{}")
        body = json.loads(cause.get("errorMessage") or "")
        if isinstance(body, dict) and "code" in body:
            return body
    except (TypeError, ValueError):
        pass
    return {"code": "internal", "retryable": True,
            "message": "a step of the PDF pipeline failed; try again, and report the task id if it keeps failing"}


def finish(event: dict[str, Any]) -> dict[str, Any]:
    """Record the outcome in TaskTable: completed (possibly partial, with ``error``) or failed."""
    job = Job.model_validate(event["job"])
    resolved = event.get("resolved") or {}
    downloaded = event.get("downloaded") or {}
    converted = event.get("converted") or {}
    errors = [
        _failure_error(event["failure"]) if event.get("failure") else None,
        resolved.get("error"),
        downloaded.get("error"),
        converted.get("error"),
    ]
    error = next((e for e in errors if e), None)
    metadata = PaperSummary.model_validate(resolved["metadata"]) if resolved.get("metadata") else None
    pdf = StoredPdf.model_validate(downloaded["pdf"]) if downloaded.get("pdf") else None
    md = (converted["md_path"], converted["converter"]) if converted.get("md_path") else None
    attempts = [Attempt.model_validate(a) for a in downloaded.get("attempts") or []]
    store = TaskStore()
    expires = int(time.time()) + PDF_TASK_TTL_S
    has_something = metadata is not None or pdf is not None or md is not None
    try:
        if error is not None and not has_something:
            store.transition(str(event["task_id"]), "failed", allowed_from=ACTIVE, error=error, expires_at=expires,
                             progress="failed")
            return {"recorded": True, "status": "failed"}
        result = results.build(job, metadata=metadata, pdf=pdf, md=md, attempts=attempts,
                               error=ErrorInfo.model_validate(error) if error else None)
        store.transition(str(event["task_id"]), "completed", allowed_from=ACTIVE,
                         result=result.model_dump(mode="json"), expires_at=expires, progress="done")
    except TaskTransitionError:
        logger.info("task %s was already finished (cancelled?); outcome not recorded", event["task_id"])
        return {"recorded": False}
    return {"recorded": True, "status": "completed"}


ACTIONS = {"resolve": resolve, "download": download, "convert": convert, "finish": finish}
