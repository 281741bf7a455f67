"""recommend_papers (scholar.families.papers.recommend) on the recorded S2 recommendation answers."""

import json

import httpx
import pytest

from scholar.core import aio, budget
from scholar.core.errors import NOT_FOUND, UPSTREAM_ERROR, ScholarError
from scholar.families.papers import recommend
from scholar.families.papers.spec_graph import RecommendPapersInput

JSON = {"Content-Type": "application/json"}
S2_ID = "c31c87c591a25c64fbaa82e8ac6a81831b6ac7ce"
OTHER_ID = "0f40b1f08821e22e859c6050916cec3667778613"


def run(**kwargs):
    return aio.run(recommend.recommend(RecommendPapersInput(**kwargs)))


def test_one_positive_example_uses_the_single_paper_endpoint(aws, upstream, fixture_file):
    route = upstream.get(f"/s2/recommendations/v1/papers/forpaper/{S2_ID}").respond(
        200, content=fixture_file("upstream/semantic_scholar/recommendations_forpaper.json"), headers=JSON
    )
    recorded = json.loads(fixture_file("upstream/semantic_scholar/recommendations_forpaper.json"))

    result = run(positive_ids=[S2_ID], limit=7)

    assert [p.paperId for p in result.data] == [r["paperId"] for r in recorded["recommendedPapers"][:7]]
    assert route.calls.last.request.url.params["limit"] == "7"


def test_positive_and_negative_dois_are_mapped_to_s2_ids_in_one_batch(aws, upstream, fixture_file):
    # SYNTHETIC batch answer in the recorded shape: the two DOIs' S2 ids.
    batch = upstream.post("/s2/graph/v1/paper/batch").respond(
        200, json=[{"paperId": S2_ID}, {"paperId": OTHER_ID}], headers=JSON
    )
    lists = upstream.post("/s2/recommendations/v1/papers/").respond(
        200, content=fixture_file("upstream/semantic_scholar/recommendations_from_lists.json"), headers=JSON
    )

    result = run(positive_ids=["10.1145/3544585.3544600"], negative_ids=["10.1145/301250.301271"], limit=3)

    assert json.loads(batch.calls.last.request.content) == {
        "ids": ["DOI:10.1145/3544585.3544600", "DOI:10.1145/301250.301271"]}
    assert json.loads(lists.calls.last.request.content) == {"positivePaperIds": [S2_ID], "negativePaperIds": [OTHER_ID]}
    assert len(result.data) == 3


def test_examples_that_do_not_resolve_are_listed_and_all_unresolved_is_not_found(aws, upstream, fixture_file):
    upstream.post("/s2/graph/v1/paper/batch").respond(200, json=[None], headers=JSON)
    with pytest.raises(ScholarError) as info:
        run(positive_ids=["10.9999/none"])
    assert info.value.code == NOT_FOUND


def test_the_recorded_400_is_an_upstream_error(aws, upstream, fixture_file):
    upstream.post("/s2/recommendations/v1/papers/").respond(
        400, content=fixture_file("upstream/semantic_scholar/recommendations_negative_only_400.json"), headers=JSON
    )
    with pytest.raises(ScholarError) as info:
        run(positive_ids=[S2_ID], negative_ids=[OTHER_ID])
    assert (info.value.code, info.value.status) == (UPSTREAM_ERROR, 400)


def test_recommendations_are_cached_for_the_same_examples_in_any_order(aws, upstream, fixture_file):
    route = upstream.post("/s2/recommendations/v1/papers/").mock(
        side_effect=[httpx.Response(200, content=fixture_file(
            "upstream/semantic_scholar/recommendations_from_lists.json"), headers=JSON)]
    )
    first = run(positive_ids=[S2_ID, OTHER_ID])
    assert run(positive_ids=[OTHER_ID, S2_ID]) == first
    assert route.call_count == 1


def test_a_list_over_the_size_budget_is_cut_and_says_so(aws, upstream, fixture_file, monkeypatch):
    upstream.get(f"/s2/recommendations/v1/papers/forpaper/{S2_ID}").respond(
        200, content=fixture_file("upstream/semantic_scholar/recommendations_forpaper.json"), headers=JSON
    )
    monkeypatch.setattr(budget, "MAX_RESULT_CHARS", 5_000)
    result = run(positive_ids=[S2_ID], limit=100)
    assert result.truncated is True and 0 < len(result.data) < 100
    assert len(result.model_dump_json()) < 5_000
