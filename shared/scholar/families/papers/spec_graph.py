"""Tools over the citation graph: authors, citation lists, citation graphs, bridges, recommendations.

Cheap to import (pydantic only): the gateway reads these models for tools/list and validation. Models set
``defer_build`` so importing this module builds no validators: a family function pays only for the tool it
runs, on its first call.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.content import ExtraContentField
from scholar.core.ids import PaperIdentifier
from scholar.core.records import FailedSources, Paper
from scholar.families.papers.fields import FieldOfStudy, FieldSet, Year, papers_tool, s2_only

Direction = Literal["citations", "references", "both"]
GraphFormat = Literal["json", "mermaid", "graphml", "dot"]
FORMAT_DESCRIPTION = (
    "mermaid, graphml or dot: the graph also as one more text block (Mermaid renders in chat; GraphML for Gephi, "
    "DOT for Graphviz)"
)
FIELD_SET = "Field set of the papers (as in search_papers)"
# A graph's JSON stays within the size budget (graph._fit); its picture (GraphML, DOT or Mermaid) repeats the same
# nodes and edges with more markup, under three times as long: both together stay within this.
PICTURE_RESULT_CHARS = 4 * MAX_RESULT_CHARS


class PaperFilters(BaseModel):
    """Filters applied to the papers a list or graph returns (S2 cannot filter these lists: we do)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    year_start: Year | None = None
    year_end: Year | None = None
    fields_of_study: list[FieldOfStudy] | None = Field(
        default=None, max_length=10, description="Keep papers in any of these S2 fields"
    )
    min_citations: Annotated[int, Field(ge=0, le=10_000_000)] | None = None


# ---------------------------------------------------------------- get_author


class GetAuthorInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    identifier: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="A numeric S2 author id, or a name",
        ),
    ]
    limit: Annotated[int, Field(ge=1, le=100, description="Publications per page")] = 20
    offset: Annotated[int, Field(ge=0, le=9_999)] = 0


class AuthorProfile(BaseModel):
    model_config = ConfigDict(defer_build=True)
    authorId: str
    name: str | None = None
    affiliations: list[str] | None = None
    homepage: str | None = None
    paperCount: int | None = None
    citationCount: int | None = None
    hIndex: int | None = None
    url: str | None = None
    externalIds: dict[str, str] | None = None


class GetAuthorResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    mode: Literal["profile", "search"] = Field(description="profile: a numeric id was given; search: a name")
    author: AuthorProfile | None = None
    papers: list[Paper] | None = Field(default=None, description="The author's publications (profile mode)")
    offset: int | None = None
    next_offset: int | None = Field(default=None, description="Pass as offset for the next page; null at the end")
    candidates: list[AuthorProfile] | None = Field(default=None, description="Up to 5 matches (search mode)")
    total: int | None = Field(default=None, description="Matches S2 reports for the name (search mode)")
    truncated: bool = Field(default=False, description="The page was cut to stay under the size budget")
    sources: list[str] = Field(default_factory=s2_only)


# ---------------------------------------------------------------- get_citations / get_references


class CitationListInput(PaperFilters):
    identifier: PaperIdentifier
    fields: FieldSet = Field(default="compact", description=FIELD_SET)
    offset: Annotated[int, Field(ge=0, le=9_000, description="Pass next_offset")] = 0


class GetCitationsInput(CitationListInput):
    limit: Annotated[int, Field(ge=1, le=1000)] = 20


class GetReferencesInput(CitationListInput):
    limit: Annotated[int, Field(ge=1, le=1000)] = 50


class CitingItem(BaseModel):
    model_config = ConfigDict(defer_build=True)
    citingPaper: Paper
    sources: list[str] | None = Field(default=None, description="The sources whose lists name this citation")


class CitedItem(BaseModel):
    model_config = ConfigDict(defer_build=True)
    citedPaper: Paper
    sources: list[str] | None = Field(default=None, description="The sources whose lists name this reference")


class ListPaging(BaseModel):
    model_config = ConfigDict(defer_build=True)
    offset: int = Field(description="Offset into the merged list this page started at")
    next_offset: int | None = Field(default=None, description="Pass as offset for the next page; null at the end")
    scanned: int = Field(description="Rows of the list read for this page (more than returned when filtering)")
    filtered_out: int = Field(default=0, description="Rows read but dropped by the filters")
    truncated: bool = Field(default=False, description="The page was cut (scan bound or size budget)")
    note: str | None = None
    failed_sources: FailedSources
    partial: bool = False
    sources: list[str] = Field(default_factory=s2_only)


class GetCitationsResult(ListPaging):
    data: list[CitingItem]


class GetReferencesResult(ListPaging):
    data: list[CitedItem]


# ---------------------------------------------------------------- get_citation_graph


class GetCitationGraphInput(PaperFilters):
    seed_ids: list[PaperIdentifier] = Field(min_length=1, max_length=10)
    direction: Direction = Field(
        default="citations", description="citations: papers citing the seeds; references: papers they cite"
    )
    depth: Annotated[int, Field(ge=1, le=3)] = 1
    max_nodes: Annotated[int, Field(ge=1, le=500, description="Seeds included")] = 100
    format: GraphFormat = Field(default="json", description=FORMAT_DESCRIPTION)


class GraphNode(BaseModel):
    model_config = ConfigDict(defer_build=True)
    id: str = Field(description="S2 paper id, else doi:/pmid:/openalex:/inspire: id; one node per work")
    title: str | None = None
    year: int | None = None
    citationCount: int | None = None
    doi: str | None = None
    depth: int = Field(description="0 for seeds, else the BFS level where it was reached")
    first_author: str | None = Field(default=None, description="The first author's name, when S2 lists one")


class GraphEdge(BaseModel):
    model_config = ConfigDict(defer_build=True)
    source: str = Field(description="The citing paper")
    target: str = Field(description="The cited paper")
    sources: list[str] | None = Field(default=None, description="The sources whose lists name this edge")


class GraphStats(BaseModel):
    model_config = ConfigDict(defer_build=True)
    total_nodes: int
    total_edges: int
    depth_reached: int
    truncated: bool = Field(description="The node budget, time budget or a failed source stopped the traversal")
    truncated_by: list[str] = Field(
        default_factory=list, description="Why: max_nodes, time_budget, failed_source or size_budget"
    )
    expanded: int = Field(description="Nodes whose citation/reference lists were read")
    unexpanded: int = Field(default=0, description="Frontier nodes left unexpanded when a budget ran out")
    edges_omitted: int = Field(default=0, description="Edges left out to keep the answer under the size budget")
    upstream_requests: int = 0
    elapsed_s: float = 0.0


class GetCitationGraphResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    stats: GraphStats
    unresolved_seeds: list[str] = Field(default_factory=list, description="Seeds no source could resolve")
    partial: bool = False
    failed_sources: FailedSources
    sources: list[str] = Field(default_factory=s2_only)
    extra_content: ExtraContentField = None


# ---------------------------------------------------------------- find_bridge_papers


class FindBridgePapersInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    source_id: PaperIdentifier
    target_id: PaperIdentifier
    max_depth: Annotated[
        int, Field(ge=1, le=6, description="Longest path in citation hops (a direct citation is 1)")
    ] = 4
    direction: Direction = Field(
        default="both",
        description="references: source cites ... cites target; citations: target cites ... cites source",
    )
    format: GraphFormat = Field(default="json", description=FORMAT_DESCRIPTION)


class BridgeStats(BaseModel):
    model_config = ConfigDict(defer_build=True)
    expanded: int
    visited: int
    exhaustive: bool = Field(description="False when a budget or list cap cut the search: 'not found' is then weak")
    elapsed_s: float
    upstream_requests: int = 0


class FindBridgePapersResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    found: bool
    length: int | None = Field(default=None, description="Hops in the path (path has length + 1 papers)")
    path: list[Paper] = Field(default_factory=list)
    hops: list[GraphEdge] = Field(default_factory=list, description="Each hop as citing → cited")
    stats: BridgeStats
    partial: bool = False
    failed_sources: FailedSources
    sources: list[str] = Field(default_factory=s2_only)
    extra_content: ExtraContentField = None


# ---------------------------------------------------------------- recommend_papers


class RecommendPapersInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    positive_ids: list[PaperIdentifier] = Field(min_length=1, max_length=5, description="Example papers")
    negative_ids: list[PaperIdentifier] | None = Field(
        default=None, max_length=5, description="Papers to steer away from"
    )
    limit: Annotated[int, Field(ge=1, le=100)] = 10
    fields: FieldSet = Field(default="standard", description=FIELD_SET)


class RecommendPapersResult(BaseModel):
    model_config = ConfigDict(defer_build=True)
    data: list[Paper]
    unresolved: list[str] = Field(default_factory=list, description="Examples no source could resolve (ignored)")
    truncated: bool = Field(default=False, description="The list was cut to stay under the size budget")
    sources: list[str] = Field(default_factory=s2_only)


TOOLS = (
    papers_tool("get_author", "Get author",
                "A numeric Semantic Scholar author id gives the profile (affiliations, h-index, counts) and a page "
                "of publications (next_offset pages on); a name gives up to 5 candidates with their ids.",
                GetAuthorInput, GetAuthorResult, max_result_chars=MAX_RESULT_CHARS),  # core.budget.fit
    papers_tool("get_citations", "Get citations",
                "Papers citing a paper (S2, OpenAlex, Europe PMC, INSPIRE, merged): [{citingPaper, sources}]. "
                "Filters apply to rows one call reads; pages may be short: use next_offset.",
                GetCitationsInput, GetCitationsResult, max_result_chars=MAX_RESULT_CHARS),  # papers.citations._fit
    papers_tool("get_references", "Get references",
                "Papers a paper cites (S2, OpenAlex, Crossref, Europe PMC, INSPIRE, merged): [{citedPaper, "
                "sources}], filtered and paged as get_citations is.",
                GetReferencesInput, GetReferencesResult, max_result_chars=MAX_RESULT_CHARS),  # papers.citations._fit
    papers_tool("get_citation_graph", "Citation graph",
                "Breadth-first citation graph from seed papers along citations, references or both, filtered. Stops "
                "at max_nodes or a time budget with stats.truncated and what it reached: start with depth=1 and a "
                "small max_nodes.",
                GetCitationGraphInput, GetCitationGraphResult, max_result_chars=PICTURE_RESULT_CHARS),
    papers_tool("find_bridge_papers", "Find bridge papers",
                "Shortest citation path between two papers, searched from both ends: {found, length, path, hops}. "
                "found: false means no path within max_depth; stats.exhaustive says whether the search was complete.",
                FindBridgePapersInput, FindBridgePapersResult, max_result_chars=PICTURE_RESULT_CHARS),
    papers_tool("recommend_papers", "Recommend papers",
                "Papers like the positive examples and unlike the negative ones (Semantic Scholar recommendations); "
                "3-5 positives on one topic work best.",
                RecommendPapersInput, RecommendPapersResult, max_result_chars=MAX_RESULT_CHARS),  # core.budget.fit
)
