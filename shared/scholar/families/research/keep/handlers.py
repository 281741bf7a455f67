"""The ``download_paper`` handler: kept at once when the preferred version is stored, else the PDF pipeline runs."""

from __future__ import annotations

from pydantic import BaseModel

from scholar.core import aio
from scholar.core.catalogue import CallContext, Handler
from scholar.core.config import get_settings
from scholar.families.research.keep.spec import DownloadPaperInput
from scholar.services.fulltext import jobs
from scholar.services.fulltext.brought import is_brought
from scholar.services.fulltext.models import KeepOptions
from scholar.services.library import kept
from scholar.services.library.brought import download_brought
from scholar.services.paper_lookup import paper_identifier


async def download_paper(args: DownloadPaperInput, ctx: CallContext) -> BaseModel:
    if is_brought(args.identifier, settings := get_settings()):  # a PDF of the caller's: a copy kept at once
        return await download_brought(ctx.principal, args.identifier, settings, collection=args.collection,
                                      prefer=args.prefer)
    keep = KeepOptions(collection=args.collection, prefer=args.prefer)
    paper = await paper_identifier(args.identifier, ctx.principal, tool="download_paper")
    job = jobs.paper_job("download_paper", paper, convert=True, keep=keep)
    stored = await kept.kept_answer(job, ctx.principal)
    return stored if stored is not None else await aio.off_loop(jobs.queue, job, ctx)


HANDLERS: dict[str, Handler] = {"download_paper": download_paper}
