"""Graphs as pictures: a citation graph or bridge path as Mermaid, GraphML or DOT text (scholar.core.content).

The structured result is the same whatever the format (it is computed, and cached, as ``format=json``);
the picture is one extra text block. GraphML and DOT are written by networkx (and pydot for DOT), never by
hand; Mermaid has no maintained Python writer, so it is written here with every label escaped to Mermaid
entity codes. Edges point citing → cited. A Mermaid picture over ``MERMAID_MAX_NODES`` keeps the seeds and
the best-connected nodes and says so in its title: a picture of 500 nodes is unreadable and slow to lay out.
networkx is imported only when a picture is asked for (cold start of the papers function).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from scholar.core.content import ExtraContent
from scholar.families.papers import bridge, graph
from scholar.families.papers.spec_graph import (
    FindBridgePapersInput,
    FindBridgePapersResult,
    GetCitationGraphInput,
    GetCitationGraphResult,
)

if TYPE_CHECKING:
    import networkx as nx

MERMAID_MAX_NODES = 60
TITLE_CHARS = 40
MEDIA_TYPES = {"mermaid": "text/vnd.mermaid", "graphml": "application/graphml+xml", "dot": "text/vnd.graphviz"}
# Characters that end or change a quoted Mermaid label; written as Mermaid's #<code>; entities.
_MERMAID_UNSAFE = set('"#<>&`|{}[]()\\;')
SEED, BRIDGE = "seed", "bridge"
_In = TypeVar("_In", GetCitationGraphInput, FindBridgePapersInput)
_Out = TypeVar("_Out", GetCitationGraphResult, FindBridgePapersResult)


@dataclass(frozen=True)
class Node:
    """A node of a picture: its id, the short label and the facts exported to GraphML / DOT."""

    id: str
    label: str
    role: str = ""  # SEED, BRIDGE or ""
    title: str | None = None
    year: int | None = None
    doi: str | None = None
    citation_count: int | None = None


@dataclass(frozen=True)
class Picture:
    nodes: list[Node]
    edges: list[tuple[str, str]]  # citing → cited
    highlighted: frozenset[tuple[str, str]] = frozenset()


async def _with_picture(args: _In, compute: Callable[[_In], Awaitable[_Out]],
                        picture: Callable[[_Out], Picture]) -> _Out:
    """Compute the result as ``format=json`` (the form that is cached), then add the picture ``args`` asks for."""
    result = await compute(args.model_copy(update={"format": "json"}))
    if args.format != "json":
        result.extra_content = [render(picture(result), args.format)]
    return result


async def citation_graph(args: GetCitationGraphInput) -> GetCitationGraphResult:
    """get_citation_graph with its picture (see scholar.families.papers.graph.citation_graph for the walk and
    Raises)."""
    return await _with_picture(args, graph.citation_graph, graph_picture)


async def find_bridge(args: FindBridgePapersInput) -> FindBridgePapersResult:
    """find_bridge_papers with its picture (see scholar.families.papers.bridge.find_bridge for the search and
    Raises)."""
    return await _with_picture(args, bridge.find_bridge, bridge_picture)


def short_label(first_author: str | None, year: int | None, title: str | None) -> str:
    """``Vaswani 2017: Attention is all you need`` with the title cut to ``TITLE_CHARS``."""
    head = " ".join(part for part in ((first_author or "").split()[-1:] + [str(year) if year else ""]) if part)
    title = " ".join((title or "").split())
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1].rstrip() + "…"
    return ": ".join(part for part in (head, title) if part) or "untitled"


def graph_picture(result: GetCitationGraphResult) -> Picture:
    nodes = [
        Node(
            id=n.id, label=short_label(n.first_author, n.year, n.title), role=SEED if n.depth == 0 else "",
            title=n.title, year=n.year, doi=n.doi, citation_count=n.citationCount,
        )
        for n in result.nodes
    ]
    return Picture(nodes=nodes, edges=[(e.source, e.target) for e in result.edges])


def bridge_picture(result: FindBridgePapersResult) -> Picture:
    ends = {result.path[0].paperId, result.path[-1].paperId} if result.path else set()
    nodes = []
    for paper in result.path:
        first = paper.authors[0].name if paper.authors else None
        nodes.append(Node(
            id=paper.paperId or "", label=short_label(first, paper.year, paper.title),
            role=SEED if paper.paperId in ends else BRIDGE, title=paper.title, year=paper.year,
            doi=(paper.externalIds or {}).get("DOI"), citation_count=paper.citationCount,
        ))
    edges = [(h.source, h.target) for h in result.hops]
    return Picture(nodes=nodes, edges=edges, highlighted=frozenset(edges))


def render(picture: Picture, fmt: str) -> ExtraContent:
    """The picture as one extra content block in ``fmt`` (mermaid, graphml or dot)."""
    if fmt == "mermaid":
        text = to_mermaid(picture)
    elif fmt == "graphml":
        import networkx as nx  # noqa: PLC0415  # deliberately lazy: only pictures need it

        text = "\n".join(nx.generate_graphml(to_networkx(picture)))
    else:
        from networkx.drawing.nx_pydot import to_pydot  # noqa: PLC0415  # lazy: pydot only for dot

        text = to_pydot(_styled(to_networkx(picture), picture)).to_string()
    return ExtraContent(text=text, media_type=MEDIA_TYPES[fmt])


def to_networkx(picture: Picture) -> nx.DiGraph[str]:
    """A directed graph (citing → cited) whose node attributes are the exported facts (absent ones left out)."""
    import networkx as nx  # noqa: PLC0415  # deliberately lazy: only pictures need it

    g: nx.DiGraph[str] = nx.DiGraph()
    for node in picture.nodes:
        facts = {"label": node.label, "role": node.role, "title": node.title, "year": node.year, "doi": node.doi,
                 "citationCount": node.citation_count}
        g.add_node(node.id, **{key: value for key, value in facts.items() if value not in (None, "")})
    g.add_edges_from(picture.edges)
    return g


def _styled(g: nx.DiGraph[str], picture: Picture) -> nx.DiGraph[str]:
    """The same graph with Graphviz styling: seeds filled, bridge nodes and path edges in colour."""
    styled = g.copy()
    styled.graph["graph"] = {"rankdir": "LR"}
    styled.graph["node"] = {"shape": "box", "fontsize": "10"}
    for node in picture.nodes:
        if node.role:
            styled.nodes[node.id].update(style="filled", fillcolor="#ffe08a" if node.role == SEED else "#c6e5ff")
    for edge in picture.highlighted:
        styled.edges[edge].update(color="#d33c3c", penwidth="2")
    return styled


def to_mermaid(picture: Picture) -> str:
    """Mermaid flowchart text; cut to the seeds and the best-connected nodes past ``MERMAID_MAX_NODES``."""
    nodes, note = _top_nodes(picture)
    keep = {n.id for n in nodes}
    short = {n.id: f"n{i}" for i, n in enumerate(nodes)}
    edges = [(a, b) for a, b in picture.edges if a in keep and b in keep]
    lines = ["---", f'title: "{note}"', "---"] if note else []  # our own text: no quotes to escape
    lines.append("flowchart LR")
    lines += [f'    {short[n.id]}["{_escape(n.label)}"]' for n in nodes]
    lines += [f"    {short[a]} --> {short[b]}" for a, b in edges]
    lines.append("    classDef seed fill:#ffe08a,stroke:#b8860b,stroke-width:2px")
    lines.append("    classDef bridge fill:#c6e5ff,stroke:#1f6fb2,stroke-width:2px")
    for role in (SEED, BRIDGE):
        members = [short[n.id] for n in nodes if n.role == role]
        if members:
            lines.append(f"    class {','.join(members)} {role}")
    marked = [str(i) for i, edge in enumerate(edges) if edge in picture.highlighted]
    if marked:
        lines.append(f"    linkStyle {','.join(marked)} stroke:#d33c3c,stroke-width:3px")
    return "\n".join(lines) + "\n"


def _top_nodes(picture: Picture) -> tuple[list[Node], str]:
    if len(picture.nodes) <= MERMAID_MAX_NODES:
        return picture.nodes, ""
    degree = _degrees(picture.edges)
    ranked = sorted(picture.nodes, key=lambda n: (n.role != SEED, -degree.get(n.id, 0)))[:MERMAID_MAX_NODES]
    chosen = {n.id for n in ranked}
    kept = [n for n in picture.nodes if n.id in chosen]  # discovery order, as in the JSON
    note = (f"{len(kept)} of {len(picture.nodes)} papers shown, the seeds and the most connected; "
            "the structured result lists them all")
    return kept, note


def _degrees(edges: Iterable[tuple[str, str]]) -> dict[str, int]:
    degree: dict[str, int] = {}
    for a, b in edges:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    return degree


def _escape(text: str) -> str:
    return "".join(f"#{ord(c)};" if c in _MERMAID_UNSAFE else c for c in " ".join(text.split()))
