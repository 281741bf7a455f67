"""The PDF pipeline's steps (statemachines/pdf_pipeline.asl.json): resolve → download → convert → finish.

Each step is an action of the PipelineFunction (``{"action": "resolve", ...}``). A step returns a small JSON
document the state machine keeps under ``$.resolved`` / ``$.downloaded`` / ``$.converted``; a failure that
retrying cannot fix (no such paper, no PDF anywhere, an encrypted PDF) is *returned* as ``{"error": {...}}``,
while a transient one (throttling, an upstream 5xx, a crash) is *raised* as ``StepError`` so the state
machine's Retry applies, then its Catch hands ``$.failure`` to finish. ``finish`` is the one place a task
is completed or failed, by the rule of scholar.runtime.outcome: a job that did not give what the tool is for
(no PDF, no Markdown) fails, and what it did get (metadata, attempts, a PDF) goes into the error's details.
"No PDF" is ``not_found`` only when every source answered and none had one; a throttled or failing source
makes it ``rate_limited`` / ``upstream_error``, retryable, naming the sources (``failed_sources``).
Artifacts never travel through the state machine, only their keys.
"""

from __future__ import annotations

import logging
import tempfile
import time
from typing import Any

from pydantic import BaseModel

from scholar.core import aio
from scholar.core.config import get_settings
from scholar.core.errors import (
    FORBIDDEN,
    NOT_FOUND,
    RATE_LIMITED,
    TIMEOUT,
    UPSTREAM_ERROR,
    NotFoundError,
    RateLimitedError,
    ScholarError,
    UpstreamError,
    UpstreamTimeoutError,
    from_envelope,
)
from scholar.core.records import FailedSource
from scholar.runtime.outcome import StepError, finish_task, step_failure
from scholar.services.fulltext import answer_builder, artifacts, docling, keep_step, licensed
from scholar.services.fulltext.jobs import PDF_TASK_TTL_S
from scholar.services.fulltext.locate import resolve_paper
from scholar.services.fulltext.models import Attempt, Candidate, Job, PaperSummary, StoredPdf
from scholar.services.fulltext.verify import check_readable, rejected
from scholar.services.library import kept
from scholar.services.pdftext.convert import convert_pdf
from scholar.services.pdftext.lock import PDFIUM
from scholar.store.tasks import ACTIVE, TaskStore, TaskTransitionError
from scholar.web.fetch import fetch_candidate

logger = logging.getLogger(__name__)

NO_OA_PDF = "no_oa_pdf"
DOWNLOAD_FAILED = "download_failed"
SOURCES_FAILED = "sources_failed"
# A candidate rejected with one of these answered for good: it has no PDF for us. Any other rejection
# (throttled, 5xx, timeout, HTML or a cut body on 200) says nothing about whether the PDF exists.
_ANSWERED_NO_PDF = frozenset({"not_found", "forbidden", "too_large"})
_NO_PDF_HINT = "If you know a PDF link (author page, repository), call fetch_pdf_by_url."



def _fail_or_raise(err: ScholarError) -> dict[str, Any]:
    """A returned error for what retrying cannot fix; raise (Retry, then Catch) for the rest."""
    if err.retryable:
        raise StepError(err) from err
    return err.to_envelope()


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
    # download_paper looks at every location again: the cached PDF does not say which version it is.
    found = artifacts.recall(artifacts.paper_cache_key(job.identifier or "")) if job.keep is None else None
    if found is None and job.keep is None:  # the caller's own licensed copy (theirs alone: their principal's record)
        found = artifacts.recall_owned(str(event.get("principal") or ""), job.identifier or "")
    if found is not None:
        return {
            "metadata": found[0].model_dump() if found[0] else None,
            "candidates": [],
            "cached_pdf": found[1].model_dump(),
            "error": None,
        }
    try:
        resolution = aio.run(
            resolve_paper(job.identifier or "", publisher_links=job.keep is not None)
        )
    except ScholarError as err:
        return _fail_or_raise(err)
    return {**resolution.model_dump(mode="json"), "cached_pdf": None, "error": None}


async def _first_pdf(
    candidates: list[Candidate], event: dict[str, Any], dest: str
) -> tuple[StoredPdf | None, list[Attempt]]:
    attempts: list[Attempt] = []
    for number, candidate in enumerate(candidates, start=1):
        await aio.off_loop(_progress, event, f"downloading the PDF: candidate {number} of {len(candidates)} "
                           f"({candidate.source})")
        try:
            pdf = await fetch_candidate(candidate.url, trusted_routing=candidate.source != "url", dest_dir=dest)
        except ScholarError as err:
            attempts.append(rejected(candidate, err))
            continue
        try:
            # Only a whole PDF is stored: a cut one would be served as cached. pdfium and the S3 upload block.
            await aio.off_loop(check_readable, pdf.path)
            key = await aio.off_loop(artifacts.store_pdf, pdf.path, pdf.sha256)
        except UpstreamError as err:
            attempts.append(rejected(candidate, err))
            continue
        finally:
            pdf.path.unlink(missing_ok=True)
        attempts.append(Attempt(source=candidate.source, url=candidate.url, ok=True))
        return StoredPdf(pdf_path=key, sha256=pdf.sha256, size_bytes=pdf.size, pdf_source=candidate.source,
                         source_url=candidate.url), attempts
    return None, attempts


def _sources_failed(failures: list[FailedSource]) -> ScholarError:
    """No PDF, but some sources failed instead of answering: retryable, naming them."""
    names = ", ".join(dict.fromkeys(f.source for f in failures))
    message = f"no PDF yet: {names} failed instead of answering, so a PDF may still exist; try again later"
    details = {"failed_sources": [f.model_dump(exclude_none=True) for f in failures]}
    if any(f.code == RATE_LIMITED for f in failures):
        return RateLimitedError(message, reason=SOURCES_FAILED, details=details)
    if all(f.code == TIMEOUT for f in failures):
        return UpstreamTimeoutError(message, reason=SOURCES_FAILED, details=details)
    return UpstreamError(message, reason=SOURCES_FAILED, details=details)


def _no_pdf(job: Job, attempts: list[Attempt], failed: list[FailedSource]) -> ScholarError:
    """Why no candidate gave a PDF: ``not_found`` only when every source answered and none had one."""
    if job.kind == "url":  # the caller's own URL: its rejection is the error
        (attempt,) = attempts
        return from_envelope({"code": attempt.code or UPSTREAM_ERROR, "reason": attempt.reason,
                              "status": attempt.status, "retryable": attempt.retryable,
                              "message": attempt.message or "the URL did not give a PDF"})
    failures = [*failed, *(
        FailedSource(source=a.source, code=a.code or UPSTREAM_ERROR, status=a.status, message=a.message or "")
        for a in attempts if a.code not in _ANSWERED_NO_PDF
    )]
    if failures:
        return _sources_failed(failures)
    if not attempts:
        return NotFoundError("no open-access PDF location was found for this paper", reason=NO_OA_PDF,
                             hint=_NO_PDF_HINT)
    return NotFoundError(f"none of the {len(attempts)} PDF locations has the PDF (see attempts)",
                         reason=DOWNLOAD_FAILED, hint=_NO_PDF_HINT)


def download(event: dict[str, Any]) -> dict[str, Any]:
    """Try the candidates in order until one is a real PDF; store it and say which source answered."""
    job = Job.model_validate(event["job"])
    resolved = event.get("resolved") or {}
    if resolved.get("cached_pdf"):
        return {"pdf": resolved["cached_pdf"], "attempts": []}
    candidates = [Candidate.model_validate(c) for c in resolved.get("candidates") or []]
    failed = [FailedSource.model_validate(f) for f in resolved.get("failed_sources") or []]
    attempts: list[Attempt] = []
    stored = None
    find = None
    if candidates and job.keep is not None:  # download_paper: every location at once, the best version kept
        _progress(event, f"downloading the PDF from {len(candidates)} locations at once, keeping the best version")
        with tempfile.TemporaryDirectory(prefix="scholar-pdf-") as dest:
            find = aio.run(keep_step.download_best(candidates, job.keep.prefer, dest))
        stored, attempts = find.pdf, find.attempts
    elif candidates:
        with tempfile.TemporaryDirectory(prefix="scholar-pdf-") as dest:
            stored, attempts = aio.run(_first_pdf(candidates, event, dest))
    proxy_error = None
    if stored is None and job.kind == "paper" and job.keep is None:  # no open copy: the caller's library proxy
        stored, attempts, proxy_error = _through_proxy(event, resolved, candidates, attempts)
    dumped = [a.model_dump() for a in attempts]
    if stored is None:
        error = _no_pdf(job, attempts, failed)
        # The proxy's refusal says what to do (sign in again); its not_found only when the open copies' is one too.
        if proxy_error is not None and (proxy_error.code == FORBIDDEN or error.code == NOT_FOUND):
            error = proxy_error
        return {"pdf": None, "attempts": dumped, "error": error.envelope_body()}
    if stored.pdf_source == "library_proxy":
        artifacts.remember_owned(str(event.get("principal") or ""), job.identifier or "",
                                 PaperSummary.model_validate(resolved.get("metadata") or {}), stored)
    elif job.kind == "paper" and resolved.get("metadata"):
        artifacts.remember_paper(job.identifier or "", PaperSummary.model_validate(resolved["metadata"]), stored)
    elif job.kind == "url":
        artifacts.remember_url(job.url or "", stored)
    if find is not None:
        keep_step.remember(job, resolved.get("metadata"), find)
    return {"pdf": stored.model_dump(), "attempts": dumped, **(find.step_fields() if find else {})}


def _through_proxy(event: dict[str, Any], resolved: dict[str, Any], candidates: list[Candidate],
                   attempts: list[Attempt]) -> tuple[StoredPdf | None, list[Attempt], ScholarError | None]:
    """The publisher's version through the caller's library proxy, for a caller who has one (else nothing)."""
    principal = str(event.get("principal") or "")
    access = licensed.proxy_access(principal)
    if access is None:
        return None, attempts, None
    _progress(event, "no open copy: fetching the publisher's version through your library proxy")
    metadata = PaperSummary.model_validate(resolved.get("metadata") or {})
    stored, more, error = aio.run(licensed.licensed_pdf(principal, access, metadata, candidates))
    return stored, [*attempts, *more], error


def _convert_builtin(pdf_path: str, principal: str) -> str:
    with tempfile.TemporaryDirectory(prefix="scholar-convert-") as dest:
        local = artifacts.pdf_to_file(pdf_path, dest, principal=principal)  # a mine/ PDF: read as the caller's
        with PDFIUM:
            return convert_pdf(local, ocr_languages=get_settings().ocr_languages).markdown


def convert(event: dict[str, Any]) -> dict[str, Any]:
    """Convert the stored PDF to Markdown (built-in, or docling-serve when configured) and store it."""
    job = Job.model_validate(event["job"])
    pdf_path = ((event.get("downloaded") or {}).get("pdf") or {}).get("pdf_path") or job.pdf_path or ""
    settings = get_settings()
    principal = str(event.get("principal") or "")
    converter = answer_builder.converter_of(job.use_vlm, pdf_path, settings)
    md_path = artifacts.md_key_of(pdf_path, converter, principal)
    if artifacts.exists(md_path):
        return {"md_path": md_path, "converter": converter}
    _progress(event, f"converting the PDF to Markdown ({converter}); usually 5-60 s")
    try:
        if converter == "builtin":
            markdown = _convert_builtin(pdf_path, principal)
        else:
            vlm = docling.vlm_from_settings(settings) if converter == "docling_vlm" else None
            done = aio.run(docling.convert(settings, url=artifacts.presign(pdf_path), vlm=vlm))
            markdown = done.markdown
    except ScholarError as err:
        return _fail_or_raise(err)
    artifacts.put_markdown(md_path, markdown)
    return {"md_path": md_path, "converter": converter}



def _with_partial(error: dict[str, Any], partial: dict[str, Any]) -> dict[str, Any]:
    """The error, its details extended with what the job did get (omitting what it did not)."""
    details = {**(error.get("details") or {}), **{k: v for k, v in partial.items() if v}}
    return {**error, "details": details} if details else error


def finish(event: dict[str, Any]) -> dict[str, Any]:
    """Record the outcome in TaskTable: completed with the tool's answer, or failed with the error."""
    job = Job.model_validate(event["job"])
    resolved = event.get("resolved") or {}
    downloaded = event.get("downloaded") or {}
    converted = event.get("converted") or {}
    # download_paper converts the kept PDF for read_paper and library_search; a PDF without text is still kept.
    unconverted = converted.get("error") if job.keep is not None else None
    errors = [
        step_failure(event["failure"], machine="PDF pipeline") if event.get("failure") else None,
        resolved.get("error"),
        downloaded.get("error"),
        None if unconverted else converted.get("error"),
    ]
    error = next((e for e in errors if e), None)
    metadata = PaperSummary.model_validate(resolved["metadata"]) if resolved.get("metadata") else None
    pdf = StoredPdf.model_validate(downloaded["pdf"]) if downloaded.get("pdf") else None
    md = (converted["md_path"], converted["converter"]) if converted.get("md_path") else None
    attempts = [Attempt.model_validate(a) for a in downloaded.get("attempts") or []]
    failed = [FailedSource.model_validate(f) for f in resolved.get("failed_sources") or []]
    expires = int(time.time()) + PDF_TASK_TTL_S
    result: BaseModel | None = None
    if error is None:
        try:
            if job.keep is not None:  # download_paper: the PDF goes into the caller's library
                result = kept.kept_result(
                    job, str(event.get("principal") or ""), metadata=metadata, downloaded=downloaded,
                    failed_sources=failed, md_path=converted.get("md_path"),
                    md_skip_reason=unconverted["message"] if unconverted else None,
                )
            else:
                result = answer_builder.build(job, metadata=metadata, pdf=pdf, md=md, attempts=attempts,
                                              principal=str(event.get("principal") or ""),
                                       failed_sources=failed)
        except ScholarError as err:  # keeping failed, or read_paper's section, figure or pages are not there
            error = err.envelope_body()
    if error is not None:
        error = _with_partial(error, {
            "metadata": metadata.model_dump(exclude_none=True) if metadata else None,
            "pdf": pdf.model_dump() if pdf else None,
            "attempts": [a.model_dump(exclude_none=True) for a in attempts],
        })
        recorded = finish_task(TaskStore(), str(event["task_id"]), error=error, allowed_from=ACTIVE,
                               expires_at=expires, progress="failed")
        status = "failed"
    else:
        assert result is not None  # built above when there was no error
        recorded = finish_task(TaskStore(), str(event["task_id"]), result=result.model_dump(mode="json"),
                               allowed_from=ACTIVE, expires_at=expires, progress="done")
        status = "completed"
    if not recorded:
        logger.info("task %s was already finished (cancelled?); outcome not recorded", event["task_id"])
        return {"recorded": False}
    return {"recorded": True, "status": status}


ACTIONS = {"resolve": resolve, "download": download, "convert": convert, "finish": finish}
