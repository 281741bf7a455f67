"""fetch_patent_pdf: the stored answer when the document was assembled before, else a task on the patent PDF machine.

A finished document is remembered (cache namespace ``result``) by its docdb number with its PDF key and
Markdown key; the answer is rebuilt from those while both artifacts exist. Otherwise the caller's task is
created (conditionally: concurrent identical calls of one caller within the hour find the same task, named
after it, so its execution starts once) and ``statemachines/patent_pdf.asl.json`` runs it.
"""

from __future__ import annotations

import hashlib
import time

from pydantic import BaseModel

from scholar.catalogue import CallContext, QueuedResult
from scholar.config import get_settings
from scholar.errors import UnavailableError
from scholar.patent_numbers import PatentNumber
from scholar.patents.models import PatentPdfResult
from scholar.runtime.executions import start_execution
from scholar.store.blobs import BlobStore
from scholar.store.cache import Cache
from scholar.store.tasks import ACTIVE, TaskItem, TaskStore, TaskTransitionError

TASK_TTL_S = 3600  # DESIGN §5: PDF work is readable for an hour
POLL_AFTER_S = 3
MAX_GENERATIONS = 8
PRESIGN_S = 900
_NAMESPACE = "result"


class PatentPdfJob(BaseModel):
    """What the state machine carries: the standardised number and the caller's options."""

    tool: str = "fetch_patent_pdf"
    country: str
    number: str
    kind: str | None = None
    use_vlm: bool = False
    max_chars: int = 30_000

    def patent(self) -> PatentNumber:
        return PatentNumber(self.country, self.number, self.kind)


def remembered_key(docdb: str) -> str:
    return f"patent-pdf:{docdb}"


def remember(docdb: str, stored: dict[str, object]) -> None:
    Cache().put(_NAMESPACE, remembered_key(docdb), stored)


def build_result(job: PatentPdfJob, stored: dict[str, object], *, cached: bool) -> PatentPdfResult:
    """The tool's answer from what is stored: PDF key, pages, Markdown key and source."""
    blobs = BlobStore()
    markdown = next_offset = None
    md_path = stored.get("md_path")
    if isinstance(md_path, str):
        data = blobs.get(md_path)
        if data is not None:
            text = data.decode("utf-8")
            markdown = text[: job.max_chars]
            next_offset = job.max_chars if len(text) > job.max_chars else None
    number = job.patent()
    pdf_path = str(stored["pdf_path"])
    return PatentPdfResult.model_validate({
        "patent_number": number.docdb, "patent_id": number.compact, "pdf_path": pdf_path,
        "pdf_sha256": stored["pdf_sha256"], "pages": stored["pages"],
        "pdf_download_url": blobs.presign(pdf_path, PRESIGN_S),
        "md_path": md_path if markdown is not None else None,
        "markdown": markdown,
        "markdown_source": stored.get("markdown_source") if markdown is not None else None,
        "markdown_next_offset": next_offset,
        "cached": cached,
    })


def cached_answer(job: PatentPdfJob) -> PatentPdfResult | None:
    stored = Cache().get(_NAMESPACE, remembered_key(job.patent().docdb))
    if not isinstance(stored, dict) or not BlobStore().exists(str(stored.get("pdf_path"))):
        return None
    return build_result(job, stored, cached=True)


def queue(job: PatentPdfJob, ctx: CallContext) -> QueuedResult:
    """Create (or find) the caller's task for this document and start its execution.

    Raises:
        UnavailableError: the patent PDF state machine is not configured, or the hour's generations are used.
    """
    machine = get_settings().resources.patent_pdf_state_machine_arn
    if not machine:
        raise UnavailableError("patent PDF assembly is not configured (SCHOLAR_PATENT_PDF_STATE_MACHINE_ARN)")
    store = TaskStore()
    hour = int(time.time() // 3600)
    base = hashlib.sha256(f"{ctx.principal}\n{job.model_dump_json()}\n{hour}".encode()).hexdigest()[:40]
    for generation in range(MAX_GENERATIONS):
        task_id = f"patpdf{base}g{generation}"
        item = TaskItem(task_id=task_id, principal=ctx.principal, tool=job.tool,
                        arguments_digest=hashlib.sha256(job.model_dump_json().encode()).hexdigest(),
                        expires_at=int(time.time()) + TASK_TTL_S, progress="queued")
        try:
            store.create(item)
        except TaskTransitionError:
            existing = store.get(task_id, ctx.principal)
            if existing is None or existing.status not in ACTIVE:
                continue  # that run finished: the next generation is a new run
            item = existing
        arn = start_execution(machine, task_id, {"task_id": task_id, "principal": ctx.principal,
                                                 "job": job.model_dump(mode="json")})
        if item.execution_arn is None:
            try:
                store.transition(task_id, "pending", allowed_from=("pending",), execution_arn=arn)
            except TaskTransitionError:
                pass  # the machine's first step already moved it on
        return QueuedResult(task_id=task_id, tool=job.tool, poll_after_s=POLL_AFTER_S)
    raise UnavailableError("this document was requested too many times in the last hour", retryable=True,
                           retry_after_s=3600 - time.time() % 3600)
