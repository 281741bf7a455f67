"""find_bridge_papers (scholar.families.papers.bridge) on a SYNTHETIC graph in the recorded S2 shapes.

Chain (X → Y: X cites Y):  P0 → P1 → P2 → P3 → P4, plus a shortcut P0 → Q → P3 and a dead end P2 → R.
"""

import pytest

from scholar.core import aio
from scholar.core.errors import NOT_FOUND, ScholarError
from scholar.families.papers import bridge
from scholar.families.papers.spec_graph import FindBridgePapersInput
from tests.fallbacks import answer_nothing
from tests.fixtures_dir import fixtures_dir
from tests.papers.synthetic_graph import SyntheticGraph, recorded_papers


@pytest.fixture
def g():
    papers = recorded_papers(fixtures_dir())[:8]
    ids = dict(zip(["P0", "P1", "P2", "P3", "P4", "Q", "R", "Z"], (p["paperId"] for p in papers), strict=True))
    cites = {
        ids["P0"]: [ids["P1"], ids["Q"]],
        ids["P1"]: [ids["P2"]],
        ids["P2"]: [ids["P3"], ids["R"]],
        ids["P3"]: [ids["P4"]],
        ids["Q"]: [ids["P3"]],
    }
    synthetic = SyntheticGraph(papers, cites, aliases={"DOI:10.5555/p4": ids["P4"]})
    synthetic.ids = ids
    return synthetic


def run(g, source, target, **kwargs):
    return aio.run(bridge.find_bridge(FindBridgePapersInput(source_id=source, target_id=target, **kwargs)))


def named(g, papers):
    back = {v: k for k, v in g.ids.items()}
    return [back[p.paperId] for p in papers]


def test_the_shortest_path_is_found_through_the_shortcut(aws, upstream, g):
    g.install(upstream)
    result = run(g, g.ids["P0"], g.ids["P4"], direction="references")
    assert result.found is True
    assert named(g, result.path) == ["P0", "Q", "P3", "P4"]
    assert result.length == 3
    assert [(h.source, h.target) for h in result.hops] == [
        (g.ids["P0"], g.ids["Q"]), (g.ids["Q"], g.ids["P3"]), (g.ids["P3"], g.ids["P4"])]
    assert result.path[1].title == g.papers[g.ids["Q"]]["title"]


def test_a_path_of_exactly_max_depth_hops_is_found(aws, upstream, g):
    g.install(upstream)
    assert run(g, g.ids["P0"], g.ids["P4"], direction="references", max_depth=3).found is True


def test_a_path_one_hop_longer_than_max_depth_is_not(aws, upstream, g):
    g.install(upstream)
    result = run(g, g.ids["P0"], g.ids["P4"], direction="references", max_depth=2)
    assert result.found is False
    assert result.stats.exhaustive is True


def test_citations_direction_walks_from_the_cited_paper_to_its_citers(aws, upstream, g):
    g.install(upstream)
    assert run(g, g.ids["P4"], g.ids["P0"], direction="citations").found is True
    assert run(g, g.ids["P0"], g.ids["P4"], direction="citations").found is False


def test_both_directions_connect_papers_through_a_common_reference(aws, upstream, g):
    g.install(upstream)
    result = run(g, g.ids["R"], g.ids["P3"], direction="both", max_depth=2)
    assert result.found is True and named(g, result.path) == ["R", "P2", "P3"]
    assert [(h.source, h.target) for h in result.hops] == [(g.ids["P2"], g.ids["R"]), (g.ids["P2"], g.ids["P3"])]


def test_source_and_target_take_any_identifier_form(aws, upstream, g):
    g.install(upstream)
    result = run(g, g.ids["P3"], "https://doi.org/10.5555/p4", direction="references", max_depth=1)
    assert named(g, result.path) == ["P3", "P4"]


def test_the_same_paper_twice_is_a_path_of_length_zero(aws, upstream, g):
    g.install(upstream)
    result = run(g, g.ids["Q"], g.ids["Q"])
    assert result.found is True and result.length == 0 and named(g, result.path) == ["Q"]


def test_search_from_both_ends_expands_fewer_nodes_than_one_sided_bfs(aws, upstream, g):
    g.install(upstream)
    result = run(g, g.ids["P0"], g.ids["P4"], direction="references", max_depth=4)
    # One-sided BFS to depth 3 would expand P0, P1, Q and P2; meeting in the middle needs fewer.
    assert result.stats.expanded <= 3


def test_an_unknown_endpoint_is_not_found(aws, upstream, g):
    g.install(upstream)
    answer_nothing(upstream, openalex=True)  # S2 lacks it, and so does every other source
    with pytest.raises(ScholarError) as info:
        run(g, g.ids["P0"], "10.9999/unknown")
    assert info.value.code == NOT_FOUND


def test_a_complete_answer_is_cached(aws, upstream, g):
    route = g.install(upstream)
    first = run(g, g.ids["P0"], g.ids["P4"], direction="references")
    calls = route.call_count
    assert run(g, g.ids["P0"], g.ids["P4"], direction="references") == first
    assert route.call_count == calls
