"""get_citation_graph (scholar.families.papers.graph) on a SYNTHETIC graph in recorded S2 shapes (synthetic_graph.py).

Graph (X → Y: X cites Y):  A,B,C → S;  D,E → A;  E,F → B;  G → F.  "DOI:10.5555/a" is A's DOI.
"""

import asyncio
import json

import httpx
import pytest

from scholar.core import aio
from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, ScholarError
from scholar.families.papers import graph
from scholar.families.papers.spec_graph import GetCitationGraphInput
from scholar.store.cache import Cache
from tests.fallbacks import answer_nothing
from tests.fixtures_dir import fixtures_dir
from tests.papers.synthetic_graph import SyntheticGraph, recorded_papers


@pytest.fixture
def g():
    papers = recorded_papers(fixtures_dir())[:8]
    s, a, b, c, d, e, f, gg = (p["paperId"] for p in papers)
    cites = {a: [s], b: [s], c: [s], d: [a], e: [a, b], f: [b], gg: [f]}
    synthetic = SyntheticGraph(papers, cites, aliases={"DOI:10.5555/a": a})
    synthetic.ids = dict(zip("SABCDEFG", (s, a, b, c, d, e, f, gg), strict=True))
    return synthetic


def run(**kwargs):
    return aio.run(graph.citation_graph(GetCitationGraphInput(**kwargs)))


def names(g, ids):
    back = {v: k for k, v in g.ids.items()}
    return sorted(back[i] for i in ids)


def test_depth_one_lists_the_citing_papers_with_citing_to_cited_edges(aws, upstream, g):
    route = g.install(upstream)

    result = run(seed_ids=[g.ids["S"]], depth=1)

    assert names(g, [n.id for n in result.nodes]) == ["A", "B", "C", "S"]
    assert {(e.source, e.target) for e in result.edges} == {(g.ids[x], g.ids["S"]) for x in "ABC"}
    assert result.stats.truncated is False and result.stats.depth_reached == 1
    # One list request for the seed, one batch to hydrate the three new nodes and the seed.
    assert route.call_count == 2 == result.stats.upstream_requests
    titles = {n.id: n.title for n in result.nodes}
    assert titles[g.ids["A"]] == g.papers[g.ids["A"]]["title"]


def test_a_doi_seed_and_the_same_paper_reached_through_the_graph_are_one_node(aws, upstream, g):
    g.install(upstream)

    result = run(seed_ids=[g.ids["S"], "10.5555/a"], depth=1)

    ids = [n.id for n in result.nodes]
    assert len(ids) == len(set(ids))
    assert names(g, ids) == ["A", "B", "C", "D", "E", "S"]
    depth = {n.id: n.depth for n in result.nodes}
    assert depth[g.ids["A"]] == 0


def test_depth_two_costs_one_request_per_expanded_node_plus_one_batch(aws, upstream, g):
    route = g.install(upstream)

    result = run(seed_ids=[g.ids["S"]], depth=2)

    assert names(g, [n.id for n in result.nodes]) == ["A", "B", "C", "D", "E", "F", "S"]
    assert result.stats.expanded == 4  # S, then A, B, C
    batches = [c for c in route.calls if c.request.url.path.endswith("/batch")]
    assert len(batches) == 1
    assert route.call_count == result.stats.expanded + 1
    assert (g.ids["E"], g.ids["B"]) in {(e.source, e.target) for e in result.edges}


def test_references_direction_follows_what_a_paper_cites(aws, upstream, g):
    g.install(upstream)
    result = run(seed_ids=[g.ids["G"]], direction="references", depth=3)
    assert names(g, [n.id for n in result.nodes]) == ["B", "F", "G", "S"]
    assert result.stats.depth_reached == 3


def test_the_node_budget_truncates_and_says_so(aws, upstream, g):
    g.install(upstream)
    result = run(seed_ids=[g.ids["S"]], depth=3, max_nodes=3)
    assert len(result.nodes) == 3
    assert result.stats.truncated is True and result.stats.truncated_by == ["max_nodes"]
    assert result.partial is False


def test_filters_keep_only_matching_neighbours(aws, upstream, g):
    g.install(upstream)
    result = run(seed_ids=[g.ids["S"]], depth=2, fields_of_study=["Economics"])
    kept = [n for n in result.nodes if n.depth > 0]
    assert kept
    for node in kept:
        assert g.record(node.id)["fieldsOfStudy"] == ["Economics"]


def test_a_complete_graph_is_cached_under_its_normalised_seeds(aws, upstream, g):
    route = g.install(upstream)
    first = run(seed_ids=[g.ids["S"], g.ids["B"]], depth=1)
    calls = route.call_count
    again = run(seed_ids=[g.ids["B"].upper(), g.ids["S"]], depth=1)
    assert again == first
    assert route.call_count == calls


def test_a_level_is_expanded_concurrently(aws, upstream, g):
    # Each of A, B and C's list requests waits until all three are in flight: a serial walk would time out.
    in_flight = []
    all_three = asyncio.Event()

    async def together(request):
        level_one = [g.ids[x] for x in "ABC"]
        if request.url.path.endswith("/citations") and any(pid in request.url.path for pid in level_one):
            in_flight.append(request.url.path)
            if len(in_flight) == 3:
                all_three.set()
            await asyncio.wait_for(all_three.wait(), timeout=5)
        return g.respond(request)

    upstream.route(path__regex=r"^/s2/graph/v1/paper/").mock(side_effect=together)
    result = run(seed_ids=[g.ids["S"]], depth=2)
    assert len(in_flight) == 3 and result.stats.truncated is False


def test_the_time_budget_returns_what_was_reached_and_is_not_cached(aws, upstream, g):
    never = asyncio.Event()

    async def slow(request):
        if request.url.path.endswith("/citations") and g.ids["S"] not in request.url.path:
            await never.wait()  # an upstream that never answers; the time budget must end the walk
        return g.respond(request)

    upstream.route(path__regex=r"^/s2/graph/v1/paper/").mock(side_effect=slow)
    args = GetCitationGraphInput(seed_ids=[g.ids["S"]], depth=2)

    result = aio.run(graph.citation_graph(args, time_budget_s=0.5))

    assert result.stats.truncated is True and "time_budget" in result.stats.truncated_by
    assert result.partial is True
    assert names(g, [n.id for n in result.nodes]) == ["A", "B", "C", "S"]
    assert result.stats.unexpanded == 3
    assert Cache().get("graph", graph.cache_key("graph", args, seed_ids=[g.ids["S"]])) is None


def test_a_failed_neighbour_list_is_reported_not_dropped(aws, upstream, g, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")

    def flaky(request):
        if request.url.path.endswith(f"{g.ids['A']}/citations"):
            return httpx.Response(429, headers={"Retry-After": "9"}, json={"message": "Too Many Requests"})
        return g.respond(request)

    upstream.route(path__regex=r"^/s2/graph/v1/paper/").mock(side_effect=flaky)

    result = run(seed_ids=[g.ids["S"]], depth=2)

    assert result.partial is True
    assert [(f.source, f.code) for f in result.failed_sources] == [("s2", "rate_limited")]
    assert "failed_source" in result.stats.truncated_by
    assert g.ids["F"] in {n.id for n in result.nodes}  # B's citers still came


def test_unknown_seeds_are_reported_and_all_unknown_is_not_found(aws, upstream, g):
    g.install(upstream)
    answer_nothing(upstream, openalex=True)  # S2 lacks it, and so does every other source
    result = run(seed_ids=[g.ids["S"], "10.9999/missing"], depth=1)
    assert result.unresolved_seeds == ["10.9999/missing"]
    with pytest.raises(ScholarError) as info:
        run(seed_ids=["10.9999/missing"], depth=1)
    assert info.value.code == NOT_FOUND


def test_a_seed_that_is_not_a_paper_id_names_its_position(aws, upstream):
    with pytest.raises(ScholarError) as info:
        run(seed_ids=["10.1234/x", "ISBN:9780262035613"])
    assert info.value.code == INVALID_ARGUMENT
    assert info.value.details["field"] == "seed_ids[1]"


def test_the_answer_stays_under_the_size_budget(aws, upstream, g, monkeypatch):
    g.install(upstream)
    monkeypatch.setattr(graph, "MAX_RESULT_CHARS", 3_500)
    result = run(seed_ids=[g.ids["S"]], depth=3)
    assert len(json.dumps(result.model_dump(mode="json"))) < 3_500
    assert "size_budget" in result.stats.truncated_by
    assert result.stats.edges_omitted > 0
