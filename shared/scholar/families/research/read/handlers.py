"""The ``read_paper`` handler: the answer from stored artifacts, else the PDF pipeline queued for it.

Which job: a PDF artifact reference converts that PDF, as does a PDF the caller brings (a path on this machine on
the local backend, ``upload/<token>``, ``mine/<sha256>.pdf``: scholar.services.fulltext.brought); an http(s) URL
that is no known paper page is the caller's own URL, vetted as fetch_pdf_by_url vets it before anything is queued;
a library item id reads the paper it keeps; anything else is a paper id (every form, scholar.services.paper_lookup).
The stored-artifact answer and the queueing are blocking (S3, DynamoDB, pdfium): they run off the loop.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from scholar.core.aio import off_loop
from scholar.core.catalogue import CallContext, Handler
from scholar.core.config import get_settings
from scholar.core.errors import InvalidArgumentError
from scholar.core.ids import LIBRARY_ITEM_RE, MAX_ID_LENGTH, InvalidIdError, parse_paper_id
from scholar.families.research.read.spec import ReadPaperInput
from scholar.services.fulltext import artifacts, brought, jobs, reading
from scholar.services.fulltext.models import Job
from scholar.services.fulltext.read_options import READ_TOOL, ReadOptions
from scholar.services.paper_lookup import paper_identifier
from scholar.store.library.table import LibraryStore
from scholar.store.owned_pdfs import stored_key

IDENTIFIER_FIELD = "identifier"
_URL = re.compile(r"^https?://", re.IGNORECASE)


def _options(args: ReadPaperInput) -> ReadOptions:
    options = ReadOptions(pages=args.pages, max_chars=args.max_chars, outline=args.outline, section=args.section,
                          figure=args.figure, table=args.table)
    # A bad range or label is refused before any work is queued (fields ``pages``, ``figure``, ``table``).
    reading.parse_pages(options.pages)
    reading.asked_label(options)
    return options


async def _job(identifier: str, options: ReadOptions, principal: str) -> Job:
    identifier = identifier.strip()
    if artifacts.PDF_KEY.match(identifier):
        return jobs.convert_job(READ_TOOL, identifier, read=options)
    if brought.is_brought(identifier, settings := get_settings()):
        own = await off_loop(brought.bring, identifier, principal, settings, field=IDENTIFIER_FIELD)
        return jobs.convert_job(READ_TOOL, own.key, read=options)
    try:
        if _URL.match(identifier) and (len(identifier) > MAX_ID_LENGTH or parse_paper_id(identifier).kind == "url"):
            return await jobs.url_job(READ_TOOL, identifier, read=options)
    except InvalidIdError as err:
        raise InvalidArgumentError(err.message, field=IDENTIFIER_FIELD, hint=err.hint) from err
    if LIBRARY_ITEM_RE.match(identifier) and (document := await _document_pdf(identifier, principal)):
        return jobs.convert_job(READ_TOOL, document, read=options)
    paper = await paper_identifier(identifier, principal, tool=READ_TOOL, field=IDENTIFIER_FIELD)
    return jobs.paper_job(READ_TOOL, paper, read=options)


async def _document_pdf(item_id: str, principal: str) -> str | None:
    """The key of the PDF an untitled document of the caller's library holds (it has no paper id to read by)."""
    item = await LibraryStore(principal).aget(item_id)
    if item is None or item.ids or not item.pdfs:
        return None
    return stored_key(principal, item.pdfs[-1].pdf_path)


def _answer(job: Job, ctx: CallContext) -> BaseModel:
    return jobs.cached_answer(job, ctx.principal) or jobs.queue(job, ctx)


async def read_paper(args: ReadPaperInput, ctx: CallContext) -> BaseModel:
    job = await _job(args.identifier, _options(args), ctx.principal)
    return await off_loop(_answer, job, ctx)


HANDLERS: dict[str, Handler] = {READ_TOOL: read_paper}
