"""fetch_patent_pdf: the stored answer when the document was assembled before, else a task on the patent PDF machine.

A finished document is remembered (cache namespace ``result``) by its docdb number with its PDF key and
Markdown key; the answer is rebuilt from those while both artifacts exist. Otherwise the caller's task is
created (deduplicated per caller and hour: ``scholar.runtime.queue.queue_deduplicated``) and
``statemachines/patent_pdf.asl.json`` runs it.
"""

from __future__ import annotations

from pydantic import BaseModel

from scholar.core.catalogue import CallContext, QueuedResult
from scholar.core.config import get_settings
from scholar.core.patent_numbers import PatentNumber
from scholar.families.patents.models import PatentPdfResult
from scholar.runtime.queue import queue_deduplicated
from scholar.store.blobs import BlobStore
from scholar.store.cache import Cache

TASK_TTL_S = 3600  # DESIGN §5: PDF work is readable for an hour
POLL_AFTER_S = 3
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
    return queue_deduplicated(
        get_settings().resources.patent_pdf_state_machine_arn, {"job": job.model_dump(mode="json")},
        unconfigured="patent PDF assembly is not configured (SCHOLAR_PATENT_PDF_STATE_MACHINE_ARN)",
        prefix="patpdf", principal=ctx.principal, tool=job.tool, dedupe_key=job.model_dump_json(), ttl_s=TASK_TTL_S,
        poll_after_s=POLL_AFTER_S, exhausted="this document was requested too many times in the last hour",
    )
