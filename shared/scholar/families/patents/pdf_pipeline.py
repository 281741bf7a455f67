"""The steps of statemachines/patent_pdf.asl.json, run as actions of the patents function.

``patent_pdf_fetch`` (images inquiry, every page, one stored PDF) → ``patent_pdf_markdown`` (OPS full text,
else the built-in converter) → ``patent_pdf_finish`` (the one place the task is completed or failed).
As in the PDF pipeline, a failure retrying cannot fix (no full document) is *returned* as ``{"error": …}``
and skips to finish; a transient one (throttled, an upstream 5xx) is *raised* as ``StepError`` so the
machine's Retry applies, then its Catch hands ``$.failure`` to finish. Only keys travel through the machine.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from scholar.core import aio
from scholar.core.config import get_settings
from scholar.core.errors import InternalError, ScholarError
from scholar.families.patents import pdf
from scholar.families.patents.pdf_jobs import TASK_TTL_S, PatentPdfJob, build_result, remember
from scholar.runtime.outcome import StepError, finish_task, step_failure
from scholar.services.pdftext.convert import convert_pdf
from scholar.services.pdftext.lock import PDFIUM
from scholar.store.blobs import BlobStore
from scholar.store.tasks import ACTIVE, TaskStore, TaskTransitionError

logger = logging.getLogger(__name__)



def _fail_or_raise(err: ScholarError) -> dict[str, Any]:
    if err.retryable:
        raise StepError(err) from err
    return {"pdf": None, "error": err.envelope_body()}


def _progress(event: dict[str, Any], text: str) -> None:
    try:
        TaskStore().transition(str(event["task_id"]), "running", allowed_from=ACTIVE, progress=text,
                               execution_arn=event.get("execution_arn") or None)
    except TaskTransitionError:
        logger.info("task %s is no longer active; progress not recorded", event["task_id"])


def fetch(event: dict[str, Any]) -> dict[str, Any]:
    """Images inquiry, every page, one PDF stored under its hash: ``{"pdf": {...} | None, "error": … | None}``."""
    job = PatentPdfJob.model_validate(event["job"])
    number = job.patent()

    def on_page(done: int, total: int) -> None:
        _progress(event, f"pages fetched {done}/{total}")

    _progress(event, f"asking EPO OPS which pages {number.compact} has")
    try:
        instance = aio.run(pdf.inquire(number))
        on_page(0, instance.pages)
        pages = aio.run(pdf.fetch_pages(instance, on_page))
        data = pdf.assemble(pages)
    except ScholarError as err:
        return _fail_or_raise(err)
    key, sha = pdf.store_pdf(data)
    return {"pdf": {"pdf_path": key, "pdf_sha256": sha, "pages": instance.pages}, "error": None}


def markdown(event: dict[str, Any]) -> dict[str, Any]:
    """Markdown of the stored PDF: OPS claims + description where OPS has them, else the built-in converter."""
    job = PatentPdfJob.model_validate(event["job"])
    stored = (event.get("fetched") or {}).get("pdf") or {}
    sha = str(stored["pdf_sha256"])
    blobs = BlobStore()
    for source in ("ops_fulltext", "builtin"):
        if blobs.exists(pdf.md_key(sha, source)):
            return {"md_path": pdf.md_key(sha, source), "markdown_source": source}
    _progress(event, "writing Markdown from the OPS full text")
    try:
        text = aio.run(pdf.fulltext_markdown(job.patent(), None))
        source = "ops_fulltext"
        if text is None:
            _progress(event, "converting the PDF to Markdown (built-in converter)")
            data = blobs.get(str(stored["pdf_path"]))
            if data is None:
                raise InternalError("the assembled PDF vanished before conversion", retryable=True)
            with PDFIUM:
                text = convert_pdf(data, ocr_languages=get_settings().ocr_languages).markdown
            source = "builtin"
    except ScholarError as err:
        return _fail_or_raise(err)
    key = pdf.md_key(sha, source)
    blobs.put(key, text.encode("utf-8"), "text/markdown; charset=utf-8")
    return {"md_path": key, "markdown_source": source}



def finish(event: dict[str, Any]) -> dict[str, Any]:
    """Record the outcome: completed with the PDF (and Markdown when it was made), or failed."""
    job = PatentPdfJob.model_validate(event["job"])
    fetched = event.get("fetched") or {}
    converted = event.get("converted") or {}
    failure = step_failure(event["failure"], machine="patent PDF pipeline") if event.get("failure") else None
    error = failure or fetched.get("error")
    store = TaskStore()
    expires = int(time.time()) + TASK_TTL_S
    task_id = str(event["task_id"])
    if error is not None or not fetched.get("pdf"):
        error = error or InternalError("no PDF was assembled", retryable=True).envelope_body()
        if not finish_task(store, task_id, error=error, allowed_from=ACTIVE, expires_at=expires, progress="failed"):
            logger.info("task %s was already finished (cancelled?); outcome not recorded", task_id)
            return {"recorded": False}
        return {"recorded": True, "status": "failed"}
    stored = {**fetched["pdf"], **({k: converted[k] for k in ("md_path", "markdown_source")}
                                   if converted.get("md_path") else {})}
    if converted.get("md_path"):
        remember(job.patent().docdb, stored)  # complete answers only
    result = build_result(job, stored, cached=False)
    if not finish_task(store, task_id, result=result.model_dump(mode="json"), allowed_from=ACTIVE,
                       expires_at=expires, progress="done"):
        logger.info("task %s was already finished (cancelled?); outcome not recorded", task_id)
        return {"recorded": False}
    return {"recorded": True, "status": "completed"}


ACTIONS = {"patent_pdf_fetch": fetch, "patent_pdf_markdown": markdown, "patent_pdf_finish": finish}
