"""The PDF tools: answer from stored artifacts at once, else queue the PDF pipeline (scholar.fulltext.pipeline).

``ACTIONS`` are the pipeline's steps; the PipelineFunction dispatches them (scholar.runtime.family), the
PdfFunction runs the tools.
"""

from __future__ import annotations

from pydantic import BaseModel

from scholar.aio import off_loop
from scholar.catalogue import CallContext, Handler
from scholar.fulltext import jobs
from scholar.fulltext.models import Job
from scholar.fulltext.pipeline import ACTIONS
from scholar.pdf.spec import ConvertPdfInput, FetchAndConvertInput, FetchPaperPdfInput, FetchPdfByUrlInput

__all__ = ["ACTIONS", "HANDLERS"]


async def _answer(job: Job, ctx: CallContext) -> BaseModel:
    # Both read and write the TaskTable and the bucket (boto3): off the event loop.
    return await off_loop(jobs.cached_answer, job) or await off_loop(jobs.queue, job, ctx)


async def fetch_paper_pdf(args: FetchPaperPdfInput, ctx: CallContext) -> BaseModel:
    return await _answer(jobs.paper_job("fetch_paper_pdf", args.identifier, convert=False), ctx)


async def fetch_and_convert(args: FetchAndConvertInput, ctx: CallContext) -> BaseModel:
    job = jobs.paper_job(
        "fetch_and_convert", args.identifier, use_vlm=args.use_vlm, offset=args.offset, max_chars=args.max_chars
    )
    return await _answer(job, ctx)


async def fetch_pdf_by_url(args: FetchPdfByUrlInput, ctx: CallContext) -> BaseModel:
    job = await jobs.url_job(
        "fetch_pdf_by_url", args.url, filename=args.filename, convert=args.convert, use_vlm=args.use_vlm,
        offset=args.offset, max_chars=args.max_chars,
    )
    return await _answer(job, ctx)


async def convert_pdf_to_markdown(args: ConvertPdfInput, ctx: CallContext) -> BaseModel:
    job = jobs.convert_job(
        "convert_pdf_to_markdown", args.file_path, use_vlm=args.use_vlm, offset=args.offset, max_chars=args.max_chars
    )
    return await _answer(job, ctx)


HANDLERS: dict[str, Handler] = {
    "fetch_paper_pdf": fetch_paper_pdf,
    "fetch_and_convert": fetch_and_convert,
    "fetch_pdf_by_url": fetch_pdf_by_url,
    "convert_pdf_to_markdown": convert_pdf_to_markdown,
}
