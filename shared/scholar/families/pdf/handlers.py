"""The PDF tools: answer from stored artifacts at once, else queue the PDF pipeline (scholar.services.pipeline).

``ACTIONS`` are the pipeline's steps; the PipelineFunction dispatches them (scholar.runtime.family), the
PdfFunction runs the tools.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from scholar.core.aio import off_loop
from scholar.core.catalogue import CallContext, Handler
from scholar.core.config import get_settings
from scholar.core.id_forms import refuse_other_forms
from scholar.core.ids import PAPER_KINDS
from scholar.families.pdf.spec import (
    ConvertPdfInput,
    FetchAndConvertInput,
    FetchPaperPdfInput,
    FetchPdfByUrlInput,
    UploadPdfInput,
    UploadPdfResult,
)
from scholar.services.fulltext import brought, jobs
from scholar.services.fulltext.models import Job
from scholar.services.fulltext.upload_link import upload_link
from scholar.services.paper_lookup import paper_identifier
from scholar.services.pipeline import ACTIONS

__all__ = ["ACTIONS", "HANDLERS"]
_WEB = re.compile(r"^https?://", re.IGNORECASE)


async def _answer(job: Job, ctx: CallContext) -> BaseModel:
    # Both read and write the TaskTable and the bucket (boto3): off the event loop.
    stored = await off_loop(jobs.cached_answer, job, ctx.principal)
    return stored if stored is not None else await off_loop(jobs.queue, job, ctx)


async def fetch_paper_pdf(args: FetchPaperPdfInput, ctx: CallContext) -> BaseModel:
    paper = await paper_identifier(args.identifier, ctx.principal, tool="fetch_paper_pdf")
    return await _answer(jobs.paper_job("fetch_paper_pdf", paper, convert=False), ctx)


async def fetch_and_convert(args: FetchAndConvertInput, ctx: CallContext) -> BaseModel:
    paper = await paper_identifier(args.identifier, ctx.principal, tool="fetch_and_convert")
    job = jobs.paper_job(
        "fetch_and_convert", paper, use_vlm=args.use_vlm, offset=args.offset, max_chars=args.max_chars
    )
    return await _answer(job, ctx)


async def fetch_pdf_by_url(args: FetchPdfByUrlInput, ctx: CallContext) -> BaseModel:
    if not _WEB.match(args.url):  # a paper's web page (doi.org, arxiv.org) is a URL like any other here
        refuse_other_forms(args.url, tool="fetch_pdf_by_url", field="url", accepts={"url"},
                           takes="an http(s) URL of a PDF", use=dict.fromkeys(PAPER_KINDS, "fetch_paper_pdf"))
    job = await jobs.url_job(
        "fetch_pdf_by_url", args.url, filename=args.filename, convert=args.convert, use_vlm=args.use_vlm,
        offset=args.offset, max_chars=args.max_chars,
    )
    return await _answer(job, ctx)


async def convert_pdf_to_markdown(args: ConvertPdfInput, ctx: CallContext) -> BaseModel:
    pdf_path = args.file_path
    if brought.is_brought(pdf_path, settings := get_settings()):  # the caller's own PDF: converted into their folder
        pdf_path = (await off_loop(brought.bring, pdf_path, ctx.principal, settings, field="file_path")).key
    else:
        refuse_other_forms(pdf_path, tool="convert_pdf_to_markdown", field="file_path", accepts={"artifact"},
                           takes="a stored PDF a PDF tool returned (pdfs/<sha256>.pdf) or one of yours",
                           use=dict.fromkeys(PAPER_KINDS, "fetch_and_convert"))
    job = jobs.convert_job(
        "convert_pdf_to_markdown", pdf_path, use_vlm=args.use_vlm, offset=args.offset, max_chars=args.max_chars
    )
    return await _answer(job, ctx)


async def upload_pdf(args: UploadPdfInput, ctx: CallContext) -> BaseModel:
    return UploadPdfResult.model_validate(await off_loop(upload_link, ctx.principal, get_settings()))


HANDLERS: dict[str, Handler] = {
    "fetch_paper_pdf": fetch_paper_pdf,
    "fetch_and_convert": fetch_and_convert,
    "fetch_pdf_by_url": fetch_pdf_by_url,
    "convert_pdf_to_markdown": convert_pdf_to_markdown,
    "upload_pdf": upload_pdf,
}
