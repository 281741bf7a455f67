"""Rank → expand → rank again: one S2 request per hop, late sources join, expansion never counts as agreement."""

from __future__ import annotations

import asyncio
import json

import anyio
import httpx

from scholar.families.research.search.federated import Budgets, search
from scholar.families.research.search.pages import ResultSets
from scholar.store.cache import Cache
from tests.fixtures.waiting import run
from tests.research.helpers import (
    ARXIV_QUERY,
    COPPER_DOI,
    S2_BATCH,
    S2_RECOMMEND,
    args,
    batch_answer,
    json_response,
    recorded,
    recorded_json,
    route_all,
    synthetic_s2_copper_row,
)


def synthetic_s2_batch_with_neighbours(row: dict, relation: str):
    """S2 ``/paper/batch`` answers (shape of paper_batch_many_fields_with_unknown_id.json: a row or null per id);
    the copper row carries a nested ``references`` / ``citations`` list of the recorded citedPaper objects
    (paper_references_offset0.json)."""
    cited = [item["citedPaper"] for item in recorded_json("semantic_scholar/paper_references_offset0.json")["data"]]
    full = {**row, relation: cited[:5]}
    return batch_answer({row["paperId"]: full, f"doi:{COPPER_DOI}": full})


def _run(coro):
    async def bounded():
        with anyio.fail_after(20):
            return await coro

    return run(bounded())


def test_each_expansion_hop_is_one_request_for_all_seeds(upstream, aws):
    route_all(upstream, s2_rows=[synthetic_s2_copper_row()])
    upstream.post(S2_BATCH).mock(side_effect=synthetic_s2_batch_with_neighbours(synthetic_s2_copper_row(),
                                                                                 "references"))
    upstream.post(S2_RECOMMEND).mock(
        return_value=json_response(recorded("semantic_scholar/recommendations_from_lists.json")))
    result = _run(search(args(query="copper oxide tensile", limit=50), "alice", sets=ResultSets(Cache())))
    batch_calls = [c for c in upstream.calls if c.request.url.path == S2_BATCH]
    recommend_calls = [c for c in upstream.calls if c.request.url.path == S2_RECOMMEND]
    assert len(batch_calls) == 1 and len(recommend_calls) == 1
    assert len(json.loads(batch_calls[0].request.content)["ids"]) == 5  # every seed in the one request
    assert result.expansion == ["references", "citations", "recommendations"]
    vias = {tuple(h.via or ()) for h in result.results}
    assert ("references",) in vias and ("recommendations",) in vias
    assert result.upstream_requests == 6 + 2


def test_expanded_papers_and_seed_lookups_never_count_as_finding(upstream, aws):
    route_all(upstream, s2_rows=[])  # S2 search finds nothing; its batch still completes the copper seed
    upstream.post(S2_BATCH).mock(side_effect=synthetic_s2_batch_with_neighbours(synthetic_s2_copper_row(),
                                                                                 "references"))
    result = _run(search(args(query="copper oxide tensile", limit=50, intent="foundational"), "alice",
                         sets=ResultSets(Cache())))
    copper = next(h for h in result.results if h.title and h.title.startswith("Effect of native oxide"))
    assert copper.found_by == ["crossref", "openalex"]
    assert copper.provenance["title"] == "s2"  # the lookup supplied fields, not agreement
    expanded = [h for h in result.results if h.via == ["references"]]
    assert expanded and all(h.found_by == [] for h in expanded)
    assert result.expansion == ["references"]


def test_a_late_source_is_reported_and_its_papers_join_before_the_final_ranking(upstream, aws):
    route_all(upstream)
    released = asyncio.Event()

    async def late_arxiv(request: httpx.Request) -> httpx.Response:
        await released.wait()  # answers only once the expansion has started: late for the first ranking
        return httpx.Response(200, content=recorded("arxiv/query_testing_start0_max10.xml"),
                              headers={"content-type": "application/atom+xml"})

    def batch(request: httpx.Request) -> httpx.Response:
        released.set()
        return batch_answer({})(request)

    upstream.get(ARXIV_QUERY).mock(side_effect=late_arxiv)
    upstream.post(S2_BATCH).mock(side_effect=batch)
    result = _run(search(args(query="testing software", limit=50), "alice", sets=ResultSets(Cache()),
                         budgets=Budgets(per_source={"arxiv_api": 0.0}, late_wait_s=10.0)))
    assert result.sources_late == ["arxiv_api"]
    assert "arxiv_api" in result.sources_answered
    assert any("arxiv_api" in h.found_by for h in result.results)
    assert result.partial is False


def test_a_source_that_never_answers_is_a_timeout_in_failed_sources(upstream, aws):
    route_all(upstream)
    never = asyncio.Event()

    async def silent(request: httpx.Request) -> httpx.Response:
        await never.wait()
        raise AssertionError("unreachable")

    upstream.get(ARXIV_QUERY).mock(side_effect=silent)
    result = _run(search(args(query="testing software", expand=False), "alice", sets=ResultSets(Cache()),
                         budgets=Budgets(per_source={"arxiv_api": 0.0}, late_wait_s=0.0)))
    assert result.partial is True
    assert [(f.source, f.code) for f in result.failed_sources] == [("arxiv_api", "timeout")]


def test_a_failing_expansion_hop_makes_the_answer_partial_but_keeps_the_searched_papers(upstream, aws, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    route_all(upstream, s2_rows=[synthetic_s2_copper_row()])
    upstream.post(S2_BATCH).mock(return_value=json_response({"message": "down"}, status=503))
    result = _run(search(args(query="copper oxide tensile", intent="foundational"), "alice", sets=ResultSets(Cache())))
    assert result.partial is True
    assert [(f.source, f.code, f.status) for f in result.failed_sources] == [("s2", "upstream_error", 503)]
    assert result.results and "s2" in result.sources_answered
