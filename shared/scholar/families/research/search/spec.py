"""The research family's ``search`` tool (seed 003, issue 11): one question, every scholarly source."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator

from scholar.core.catalogue import MAX_RESULT_CHARS, READ_ONLY_OPEN, ToolInput, ToolSpec
from scholar.core.records import FailedSources

MAX_QUESTION = 1000
Intent = Literal["foundational", "recent", "survey", "methods", "datasets"]
Sort = Literal["relevance", "citations", "date"]


class SearchInput(ToolInput):
    query: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=MAX_QUESTION,
              description="The question or keywords as you would say them; quoted phrases and field prefixes (ti:, "
              "au:) pass through. Omit only with cursor."),
    ] = None
    limit: Annotated[int, Field(ge=1, le=50)] = 10
    cursor: Annotated[
        str | None,
        Field(default=None, min_length=1, max_length=200,
              description="next_cursor of the previous answer (the same ranking)"),
    ] = None
    intent: Intent | None = Field(
        default=None,
        description="Leans ranking and expansion: foundational: highly cited, follows references; recent: newer "
        "first, follows citations",
    )
    sort: Sort = "relevance"
    year_start: Annotated[int | None, Field(default=None, ge=1600, le=2100)] = None
    year_end: Annotated[int | None, Field(default=None, ge=1600, le=2100)] = None
    venue: Annotated[str | None, Field(default=None, min_length=1, max_length=200,
                                       description="Venue contains this text")] = None
    open_access_only: bool = False
    fields_of_study: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=100)]] | None,
        Field(default=None, max_length=10, description="Any of these fields or categories"),
    ] = None
    min_citations: Annotated[int | None, Field(default=None, ge=0, le=10_000_000)] = None
    sources: Annotated[
        list[Literal["s2", "openalex", "crossref", "arxiv_api", "europepmc", "inspire"]] | None,
        Field(default=None, min_length=1, max_length=6, description="Ask only these sources"),
    ] = None
    expand: bool = Field(default=True, description="Follow the best papers' references, citations and related work")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be blank")
        return value


class Signals(BaseModel):
    """Why a result ranks where it does: the score and each signal in [0, 1]."""

    score: float
    relevance: float = Field(description="The ranking model's relevance (BM25 fused with meaning, or the reranker)")
    title: float | None = Field(default=None, description="1 when the question is the paper's title")
    citations: float | None = Field(default=None, description="log-scaled citation count against the pool's best")
    sources: float | None = Field(default=None, description="Share of answering sources that found the paper")
    recency: float | None = Field(default=None, description="Halves every six years")
    kind: float | None = Field(default=None, description="1 when the text matches the intent (survey, …)")


class SearchHit(ToolInput):
    """One compact result; every entry of ``ids`` is accepted by every other tool."""

    id: str = Field(description="The preferred identifier (S2 id, DOI, arXiv id, PMID, INSPIRE:…); a paper with "
                    "no identifier at all carries its web page URL")
    ids: list[str] = Field(description="Every identifier known for the paper, in a form every tool accepts")
    title: str | None = None
    authors: list[str] | None = Field(default=None, description="The first authors")
    author_count: int | None = None
    year: int | None = None
    venue: str | None = None
    citation_count: int | None = None
    abstract: str | None = Field(default=None, description="The start of the abstract")
    pdf_url: str | None = Field(default=None, description="An open-access PDF link")
    is_open_access: bool | None = None
    url: str | None = None
    found_by: list[str] = Field(description="Sources whose search returned the paper")
    via: list[str] | None = Field(default=None, description="Expansion relations that brought it in")
    provenance: dict[str, str] = Field(description="Which source supplied each field")
    signals: Signals


class SearchResult(BaseModel):
    query: str
    results: list[SearchHit]
    total: int = Field(description="Results in the whole ranked set after filters")
    offset: int
    next_cursor: str | None = Field(default=None, description="Pass as cursor for the next page")
    ranker: str = Field(description="Which model ranked: bm25 (fused with meaning) or rerank:<model>")
    ranker_note: str | None = Field(default=None, description="Why the remote reranker did not rank, if so")
    intent: Intent | None = None
    sort: Sort = "relevance"
    sources_answered: list[str]
    sources_late: list[str] = Field(
        default_factory=list,
        description="Sources that missed the first ranking: they answered later and joined the final one, or (also in "
        "failed_sources) their pace or answer came after this search's deadline")
    partial: bool
    failed_sources: FailedSources
    expansion: list[str] = Field(default_factory=list, description="The hops followed from the seeds")
    upstream_requests: int = Field(description="Requests this search sent upstream (searches, hops, reranks)")
    truncated: bool | None = Field(default=None, description="The page was cut to fit the size budget")


TOOLS = (
    ToolSpec(
        name="search",
        family="research",
        title="Research search",
        description="One research question, one ranked, de-duplicated list from Semantic Scholar, OpenAlex, "
        "Crossref, arXiv, Europe PMC and INSPIRE-HEP (found_by: who found it). The best papers' references, citations "
        "and related work join the pool before one ranking (words and meaning, or a reranker; plus citation, source "
        "and recency signals). Filters and limit apply after; page with next_cursor. partial and failed_sources name "
        "failed sources; all failing is an error.",
        input_model=SearchInput,
        output_model=SearchResult,
        annotations=READ_ONLY_OPEN,
        max_result_chars=MAX_RESULT_CHARS,  # search.hits.fit
    ),
)
