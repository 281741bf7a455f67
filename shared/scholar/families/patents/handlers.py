"""The patents family's tool implementations (dispatched by scholar.runtime.family) and pipeline actions."""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel

from scholar.core.aio import off_loop
from scholar.core.catalogue import CallContext, Handler, args_only
from scholar.core.id_forms import refuse_other_forms
from scholar.core.patent_numbers import parse_patent_number
from scholar.families.patents import citing, get, pdf_jobs, search
from scholar.families.patents.get import PATENT_FORMS
from scholar.families.patents.spec import FetchPatentPdfInput
from scholar.sources.epo_ops_numbers import standardise


async def fetch_patent_pdf(args: FetchPatentPdfInput, ctx: CallContext) -> BaseModel:
    """The stored document when it was assembled before; otherwise a queued task that assembles it."""
    refuse_other_forms(args.patent_number, tool="fetch_patent_pdf", field="patent_number", accepts={"patent"},
                       takes=PATENT_FORMS)
    number = await standardise(parse_patent_number(args.patent_number))
    job = pdf_jobs.PatentPdfJob(country=number.country, number=number.number, kind=number.kind,
                                use_vlm=args.use_vlm, max_chars=args.max_chars)
    # Both read DynamoDB / S3 (and queue a Step Functions execution): off the event loop.
    stored = await off_loop(pdf_jobs.cached_answer, job)
    return stored if stored is not None else await off_loop(pdf_jobs.queue, job, ctx)


HANDLERS: dict[str, Handler] = {
    "search_patents": args_only(search.search_patents),
    "get_patent": args_only(get.get_patent),
    "get_citing_patents": args_only(citing.get_citing_patents),
    "fetch_patent_pdf": fetch_patent_pdf,
}



def _step(name: str) -> Any:
    """A patent PDF machine step, imported when the machine calls it (pdfium stays out of tool calls)."""

    def action(event: dict[str, Any]) -> dict[str, Any]:
        return importlib.import_module("scholar.families.patents.pdf_pipeline").ACTIONS[name](event)

    action.__name__ = name
    return action


ACTIONS = {name: _step(name) for name in ("patent_pdf_fetch", "patent_pdf_markdown", "patent_pdf_finish")}
