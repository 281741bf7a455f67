"""Graphs as pictures: get_citation_graph / find_bridge_papers with format = mermaid | graphml | dot.

The graphs are SYNTHETIC edges over real recorded S2 papers (tests/papers/synthetic_graph.py).
Graph (X → Y: X cites Y):  A,B,C → S;  D,E → A;  E,F → B;  G → F.
"""

from __future__ import annotations

import html
import io
import json

import jsonschema
import networkx as nx
import pydot
import pytest

from functions.gateway.app import lambda_handler
from scholar.core import aio
from scholar.core.content import EXTRA_CONTENT_FIELD
from scholar.families import get_tool
from scholar.families.papers import graph_formats
from scholar.families.papers.graph_formats import MERMAID_MAX_NODES, Node, Picture, to_mermaid
from scholar.gateway.mcp.dispatch import success_result
from scholar.runtime.family import run_tool
from scholar.runtime.invocation import Invocation
from tests.events import load_event, with_body
from tests.fixtures_dir import fixtures_dir
from tests.papers.synthetic_graph import SyntheticGraph, recorded_papers
from tests.people import browser
from tests.people.node_tools import node_packages, parse_mermaid


@pytest.fixture
def g():
    papers = recorded_papers(fixtures_dir())[:8]
    s, a, b, c, d, e, f, gg = (p["paperId"] for p in papers)
    cites = {a: [s], b: [s], c: [s], d: [a], e: [a, b], f: [b], gg: [f]}
    synthetic = SyntheticGraph(papers, cites)
    synthetic.ids = dict(zip("SABCDEFG", (s, a, b, c, d, e, f, gg), strict=True))
    return synthetic


def graph_call(g, fmt: str) -> dict:
    arguments = {"seed_ids": [g.ids["S"]], "depth": 3, "format": fmt}
    invocation = Invocation(tool="get_citation_graph", arguments=arguments, principal="local", request_id="r1")
    return aio.run(run_tool("papers", invocation))


def bridge_call(g, fmt: str) -> dict:
    arguments = {"source_id": g.ids["G"], "target_id": g.ids["S"], "format": fmt, "direction": "references"}
    invocation = Invocation(tool="find_bridge_papers", arguments=arguments, principal="local", request_id="r2")
    return aio.run(run_tool("papers", invocation))


def test_json_is_the_default_and_carries_no_extra_block(aws, upstream, g):
    g.install(upstream)

    result = graph_call(g, "json")

    assert EXTRA_CONTENT_FIELD not in result
    assert len(result["nodes"]) == 8


def test_the_structured_result_is_the_same_whatever_the_format(aws, upstream, g):
    g.install(upstream)

    plain = graph_call(g, "json")
    pictured = graph_call(g, "graphml")

    rest = {k: v for k, v in pictured.items() if k != EXTRA_CONTENT_FIELD}
    assert rest["nodes"] == plain["nodes"] and rest["edges"] == plain["edges"]


def test_graphml_reads_back_with_networkx_as_the_same_directed_graph(aws, upstream, g):
    g.install(upstream)

    result = graph_call(g, "graphml")

    (block,) = result[EXTRA_CONTENT_FIELD]
    assert block["media_type"] == "application/graphml+xml"
    back = nx.read_graphml(io.BytesIO(block["text"].encode()))
    assert back.is_directed()
    assert set(back.nodes) == {n["id"] for n in result["nodes"]}
    assert set(back.edges) == {(e["source"], e["target"]) for e in result["edges"]}
    assert (g.ids["A"], g.ids["S"]) in back.edges  # citing → cited
    assert back.nodes[g.ids["S"]]["role"] == "seed"
    assert back.nodes[g.ids["A"]]["title"] == g.papers[g.ids["A"]]["title"]


# pydot's DOT *parser* (used only here, to read our output back) still calls pyparsing's old names.
@pytest.mark.filterwarnings("ignore::DeprecationWarning:pydot.*")
def test_dot_parses_with_pydot_and_keeps_every_edge(aws, upstream, g):
    g.install(upstream)

    result = graph_call(g, "dot")

    (block,) = result[EXTRA_CONTENT_FIELD]
    assert block["media_type"] == "text/vnd.graphviz"
    (dot,) = pydot.graph_from_dot_data(block["text"])
    assert len(dot.get_edges()) == len(result["edges"]) == 8


def test_the_mermaid_of_a_citation_graph_is_valid_for_the_official_parser(aws, upstream, g):
    g.install(upstream)

    result = graph_call(g, "mermaid")

    (block,) = result[EXTRA_CONTENT_FIELD]
    assert block["media_type"] == "text/vnd.mermaid"
    text = block["text"]
    assert text.count(" --> ") == len(result["edges"])
    assert "class n0 seed" in text
    assert parse_mermaid([text]) == [{"ok": True, "type": "flowchart-v2"}]


def test_the_mermaid_of_a_bridge_highlights_the_path_and_its_ends(aws, upstream, g):
    g.install(upstream)

    result = bridge_call(g, "mermaid")

    assert result["found"] is True and result["length"] == 3  # G → F → B → S
    text = result[EXTRA_CONTENT_FIELD][0]["text"]
    assert "linkStyle 0,1,2 " in text
    assert "class n0,n3 seed" in text and "class n1,n2 bridge" in text
    assert parse_mermaid([text])[0]["ok"] is True


def test_labels_with_quotes_brackets_and_markup_stay_inside_their_node():
    hostile = 'Café "quoted" [x] (y) {z} <b>bold</b> #1; a|b `c` \\ end'
    picture = Picture(nodes=[Node(id="a", label=hostile, role="seed"), Node(id="b", label="Plain 2020: t")],
                      edges=[("a", "b")])

    text = to_mermaid(picture)

    assert '"' not in text.splitlines()[1][len('    n0["'):-2]
    assert parse_mermaid([text]) == [{"ok": True, "type": "flowchart-v2"}]


def test_a_large_graph_is_cut_to_the_seeds_and_best_connected_nodes_with_a_note():
    hub = [Node(id="hub", label="Hub 2001: cited by all")]
    seed = [Node(id="seed", label="Seed 2000: s", role="seed")]
    leaves = [Node(id=f"p{i}", label=f"Leaf {i}") for i in range(200)]
    edges = [(leaf.id, "hub") for leaf in leaves] + [("hub", "seed")]

    text = to_mermaid(Picture(nodes=seed + hub + leaves, edges=edges))

    nodes = [line for line in text.splitlines() if line.strip().startswith("n") and '["' in line]
    assert len(nodes) == MERMAID_MAX_NODES
    assert "of 202 papers shown" in text
    assert '"Seed 2000: s"' in text and '"Hub 2001: cited by all"' in text
    assert parse_mermaid([text])[0]["ok"] is True


def test_the_official_parser_rejects_a_broken_diagram():
    # The check itself can fail: a dangling edge is refused.
    assert parse_mermaid(["flowchart LR\n    n0 --> \n"])[0]["ok"] is False


def test_the_gateway_sends_the_picture_as_a_second_text_block_and_not_in_structured_content():
    result = {"found": False, "stats": {}, EXTRA_CONTENT_FIELD: [{"text": "flowchart LR", "media_type": "text/x"}]}

    answer = success_result(result)

    assert EXTRA_CONTENT_FIELD not in answer.structured_content
    assert [block.text for block in answer.content][1] == "flowchart LR"
    assert answer.content[1].meta == {"mediaType": "text/x"}
    assert len(answer.content) == 2


def test_the_format_is_an_input_and_the_extra_block_is_no_part_of_the_output_schema():
    for name in ("get_citation_graph", "find_bridge_papers"):
        spec = get_tool(name)
        assert spec.input_schema()["properties"]["format"]["enum"] == ["json", "mermaid", "graphml", "dot"]
        assert EXTRA_CONTENT_FIELD not in str(spec.output_schema())


def test_a_short_label_is_first_author_surname_year_and_a_shortened_title():
    label = graph_formats.short_label("Ashish Vaswani", 2017, "Attention is all you need " * 4)

    assert label.startswith("Vaswani 2017: Attention is all you need")
    assert label.endswith("…") and len(label) <= len("Vaswani 2017: ") + graph_formats.TITLE_CHARS


def test_through_the_gateway_the_picture_is_a_second_block_and_structured_content_fits_the_output_schema(
    aws, upstream, env, g, lambda_context
):
    env.set(SCHOLAR_LOCAL_DISPATCH="1", SCHOLAR_PROFILE="all")  # get_citation_graph is outside the default profile
    g.install(upstream)
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "get_citation_graph", "arguments": {"seed_ids": [g.ids["S"]], "depth": 1, "format": "mermaid"}}}

    response = lambda_handler(with_body(load_event("api_rest_v1_tools_call"), message), lambda_context)

    result = json.loads(response["body"])["result"]
    assert result.get("isError") in (None, False), result
    first, second = result["content"]
    assert json.loads(first["text"]) == result["structuredContent"]
    assert second["text"].startswith("flowchart LR") and second["_meta"] == {"mediaType": "text/vnd.mermaid"}
    assert EXTRA_CONTENT_FIELD not in result["structuredContent"]
    jsonschema.validate(result["structuredContent"], get_tool("get_citation_graph").output_schema())


def test_the_mermaid_of_a_citation_graph_renders_as_a_picture_in_a_browser(aws, upstream, g, tmp_path):
    g.install(upstream)
    text = graph_call(g, "mermaid")[EXTRA_CONTENT_FIELD][0]["text"]
    script = node_packages() / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
    page = tmp_path / "graph.html"
    page.write_text(
        f'<!doctype html><meta charset="utf-8"><body><pre class="mermaid">{html.escape(text)}</pre>'
        f'<script src="{script.as_uri()}"></script>'
        '<script>mermaid.initialize({startOnLoad: true, securityLevel: "strict"});</script></body>'
    )

    visit = browser.visit(page.as_uri())

    assert "<svg" in visit.dom and 'aria-roledescription="flowchart-v2"' in visit.dom
    assert visit.dom.count('class="node ') + visit.dom.count("class=\"node\"") >= 8
    assert visit.console == []
    browser.screenshot(page.as_uri(), "citation_graph.png", size="1400,900")
