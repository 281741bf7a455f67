"""The ``fetch`` handler: the paper's record, and its full text when a conversion is stored.

The record comes from the same resolution get_paper and the library use (``scholar.services.paper_lookup``: cache, then
Semantic Scholar, OpenAlex, Crossref), so a failing source is that source's error, never an empty answer. The text
comes from read_paper's reuse path (``scholar.services.fulltext.jobs.cached_answer``): the Markdown read_paper or
download_paper stored for any of the paper's ids, whole pages from the first, up to ``FETCH_MAX_CHARS``.
"""

from __future__ import annotations

from scholar.core.aio import off_loop
from scholar.core.catalogue import CallContext, Handler
from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.core.ids import written_ids
from scholar.core.records import Paper
from scholar.core.resource_uris import PAPER_MARKDOWN
from scholar.families.research.fetch.spec import FETCH_MAX_CHARS, FETCH_TOOL, FetchInput, FetchMetadata, FetchResult
from scholar.services.fulltext import jobs
from scholar.services.fulltext.read_options import READ_TOOL, ReadOptions
from scholar.services.fulltext.read_result import ReadPaperResult
from scholar.services.paper_lookup import free_text, get_paper, identify

ID_FIELD = "id"
_AUTHORS = 10
_NOT_CONVERTED = ("This server has not converted the paper yet: read_paper converts it (queued, usually 5-60 s), "
                  "and fetch then answers with the full text.")


def _converted(identifier: str) -> ReadPaperResult | None:
    """read_paper's answer from stored artifacts for the whole paper, or None when nothing is converted."""
    try:
        job = jobs.paper_job(READ_TOOL, identifier, read=ReadOptions(pages="1-", max_chars=FETCH_MAX_CHARS))
    except InvalidArgumentError:  # a kind the PDF pipeline cannot look up (an OpenAlex id): nothing was converted
        return None
    try:
        answer = jobs.cached_answer(job)
    except NotFoundError:  # the stored artifacts expired between lookup and read
        return None
    return answer if isinstance(answer, ReadPaperResult) else None


def _markdown_uri(identifier: str) -> str | None:
    """The paper_markdown URI of the conversion found under ``identifier``, only when resources/read answers it.

    A library item's id is no paper id (``scholar://paper/lib_…/markdown`` names nothing), so the URI is built from
    the id the text was found by, and checked the way resources/read looks it up: no answer hands out a dead URI.
    """
    return PAPER_MARKDOWN.uri(id=identifier) if jobs.converted_markdown(identifier) is not None else None


def _url(paper: Paper) -> str:
    if landing := paper.landing_url():
        return landing
    return f"https://www.semanticscholar.org/paper/{paper.paperId}" if paper.paperId else ""


def _ids(paper: Paper) -> list[str]:
    return list(dict.fromkeys([*([paper.paperId] if paper.paperId else []), *written_ids(paper.externalIds or {})]))


async def fetch(args: FetchInput, ctx: CallContext) -> FetchResult:
    identifier = args.id.strip()
    pid = await identify(identifier, field=ID_FIELD, tool=FETCH_TOOL, library=True)
    paper = await get_paper(identifier, principal=ctx.principal, tool=FETCH_TOOL, field=ID_FIELD)
    # A library item's (or a matched title's) text is stored under the paper's own ids.
    named = pid.kind == "library_item" or free_text(identifier)
    stored_as = next(iter(_ids(paper)), identifier) if named else identifier
    read = await off_loop(_converted, stored_as)
    title = paper.title or identifier
    names = [a.name for a in paper.authors or [] if a.name]
    facts = {
        "ids": _ids(paper), "authors": names[:_AUTHORS] or None, "year": paper.year, "venue": paper.venue or None,
        "citation_count": paper.citationCount,
        "pdf_url": paper.openAccessPdf.url if paper.openAccessPdf else None,
    }
    if read is not None and read.markdown:
        metadata = FetchMetadata(
            text_source="full_text", page_count=read.page_count, pages_returned=read.pages_returned,
            next_pages=read.next_pages, markdown_uri=await off_loop(_markdown_uri, stored_as),
            note=(f"Pages {read.next_pages} were left out for length: read_paper(identifier, pages) reads them."
                  if read.next_pages else None),
            **facts)
        return FetchResult(id=args.id, title=title, text=read.markdown, url=_url(paper), metadata=metadata)
    text = f"{title}\n\n{paper.abstract}" if paper.abstract else title
    source = "abstract" if paper.abstract else "title"
    note = _NOT_CONVERTED if paper.abstract else f"No abstract is known for this paper. {_NOT_CONVERTED}"
    return FetchResult(id=args.id, title=title, text=text, url=_url(paper),
                       metadata=FetchMetadata(text_source=source, note=note, **facts))


HANDLERS: dict[str, Handler] = {FETCH_TOOL: fetch}
