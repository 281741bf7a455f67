"""The research family's ``fetch`` tool (issue 21): ChatGPT's connector contract beside ``search``.

ChatGPT's connectors and deep research call ``search`` (results carrying ``id``, ``title``, ``url``) and then
``fetch(id)``, and expect ``{id, title, text, url, metadata}`` at once. ``text`` is the paper's full text when this
server has converted it (read_paper or download_paper stored its Markdown), else its title and abstract: fetch
never queues work, because a deep-research run fetches dozens of results and waits for none (``metadata`` says
which it is, and read_paper makes the full text).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from scholar.core.catalogue import READ_ONLY_OPEN, ToolInput, ToolSpec, text_argument
from scholar.services.fulltext.read_options import MAX_READ_CHARS, READ_RESULT_CHARS

FETCH_TOOL = "fetch"
# Whole pages up to read_paper's own largest answer; the rest is read with read_paper (next_pages).
FETCH_MAX_CHARS = MAX_READ_CHARS


class FetchInput(ToolInput):
    id: text_argument(  # type: ignore[valid-type]  # a type text_argument builds at run time
        300, "A search result's id (or any of its ids), or any paper identifier: DOI, arXiv id, S2 id, PMID:…, PMCID:…"
    )


class FetchMetadata(BaseModel):
    """What the text is, and the paper's facts."""

    text_source: Literal["full_text", "abstract", "title"] = Field(
        description="full_text: the converted paper; abstract: not converted yet (read_paper converts it); title: "
        "no abstract is known either")
    ids: list[str] = Field(default_factory=list, description="Identifiers every tool accepts")
    authors: list[str] | None = None
    year: int | None = None
    venue: str | None = None
    citation_count: int | None = None
    pdf_url: str | None = Field(default=None, description="An open-access PDF link")
    page_count: int | None = None
    pages_returned: str | None = Field(default=None, description="The pages in text (full text only)")
    next_pages: str | None = Field(default=None, description="Pages left out for length: read_paper(pages=…) reads "
                                   "them")
    markdown_uri: str | None = Field(default=None, description="The MCP resource holding the whole Markdown")
    note: str | None = Field(default=None, description="What the text lacks and how to get it")


class FetchResult(BaseModel):
    id: str = Field(description="The id asked for")
    title: str
    text: str
    url: str = Field(description="The paper's page to cite (DOI link, arXiv page or Semantic Scholar page)")
    metadata: FetchMetadata


TOOLS = (
    ToolSpec(
        name=FETCH_TOOL,
        family="research",
        title="Fetch a search result",
        description="The full record of one search result by its id: {id, title, text, url, metadata}, as ChatGPT "
        "connectors and deep research expect. text is the paper's full text (Markdown, whole pages up to "
        "200,000 characters) when this server has converted it, else its title and abstract "
        "(metadata.text_source says which; read_paper converts a paper, and fetch then answers with the full "
        "text). It never queues.",
        input_model=FetchInput,
        output_model=FetchResult,
        annotations=READ_ONLY_OPEN,
        max_result_chars=READ_RESULT_CHARS,  # text of at most FETCH_MAX_CHARS leaves room for the metadata
    ),
)
