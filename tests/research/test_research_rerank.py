"""The optional remote reranker: the /rerank shape, checked scores, batches, a five-minute pause."""

from __future__ import annotations

import json

import httpx
import pytest

from scholar.core.errors import ScholarError
from scholar.families.research.search import rerank
from scholar.families.research.search.federated import search
from scholar.families.research.search.pages import ResultSets
from scholar.store.cache import Cache
from tests.fixtures.waiting import run
from tests.research.helpers import COPPER_TITLE, args, json_response, route_all

RERANK = "http://rerank.test"


@pytest.fixture
def reranker(env, upstream):
    env(SCHOLAR_RERANK_URL=RERANK, SCHOLAR_RERANK_MODEL="test-reranker", SCHOLAR_RERANK_API_KEY="k-123",
        SCHOLAR_RETRY_BUDGET_S="0")
    rerank.resume()
    yield upstream
    rerank.resume()


def _scores_by_order(request: httpx.Request) -> httpx.Response:
    """A rerank service that prefers earlier documents: relevance 1/(1+index)."""
    body = json.loads(request.content)
    results = [{"index": i, "relevance_score": 1 / (1 + i)} for i in range(len(body["documents"]))]
    return json_response({"results": list(reversed(results))})


def test_the_reranker_receives_the_common_request_shape_and_the_answer_names_it(reranker, aws):
    route_all(reranker)
    route = reranker.post(f"{RERANK}/rerank").mock(side_effect=_scores_by_order)
    result = run(search(args(query="cancer", expand=False), "alice", sets=ResultSets(Cache())))
    body = json.loads(route.calls[0].request.content)
    assert set(body) == {"model", "query", "documents", "top_n"}
    assert body["model"] == "test-reranker" and body["query"] == "cancer"
    assert route.calls[0].request.headers["authorization"] == "Bearer k-123"
    assert result.ranker == "rerank:test-reranker"


def test_a_large_pool_goes_in_batches_ranked_together(reranker, aws, monkeypatch):
    monkeypatch.setattr(rerank, "BATCH", 16)  # the recorded pool holds a few dozen papers
    route_all(reranker)
    route = reranker.post(f"{RERANK}/rerank").mock(side_effect=_scores_by_order)
    result = run(search(args(query="cancer", expand=False, limit=50), "alice", sets=ResultSets(Cache())))
    sizes = [len(json.loads(c.request.content)["documents"]) for c in route.calls]
    assert len(sizes) > 1 and all(size <= rerank.BATCH for size in sizes)
    assert sum(sizes) == result.total  # no candidate cut to fit the service


@pytest.mark.parametrize("answer", [
    {"results": [{"index": 0, "relevance_score": 0.5}]},  # too few scores
    {"results": "nope"},
])
def test_scores_that_fail_the_checks_leave_the_local_model_ranking_without_a_pause(reranker, aws, answer):
    route_all(reranker)
    reranker.post(f"{RERANK}/rerank").mock(return_value=json_response(answer))
    result = run(search(args(query=COPPER_TITLE, expand=False), "alice", sets=ResultSets(Cache())))
    assert result.ranker == "bm25" and result.ranker_note
    assert not rerank.paused()


@pytest.mark.parametrize("score", [float("nan"), 1.5, -0.1, "high", True])
def test_a_score_that_is_not_finite_or_outside_zero_to_one_is_rejected(score):
    with pytest.raises(rerank.ScoresRejectedError):
        rerank.check_scores({"results": [{"index": 0, "relevance_score": score}]}, 1)


def test_a_repeated_index_is_rejected():
    with pytest.raises(rerank.ScoresRejectedError):
        rerank.check_scores({"results": [{"index": 0, "relevance_score": 0.1}, {"index": 0, "score": 0.2}]}, 2)


def test_an_unreachable_reranker_is_paused_for_five_minutes_while_bm25_ranks(reranker, aws):
    route_all(reranker)
    route = reranker.post(f"{RERANK}/rerank").mock(side_effect=httpx.ConnectError("refused"))
    first = run(search(args(query="cancer", expand=False), "alice", sets=ResultSets(Cache())))
    asked = route.call_count
    second = run(search(args(query="cancer", expand=False), "alice", sets=ResultSets(Cache())))
    assert first.ranker == second.ranker == "bm25"
    assert rerank.paused() and rerank.PAUSE_S == 300
    assert asked >= 1 and route.call_count == asked  # the second search did not ask the paused service
    assert "paused" in (second.ranker_note or "")


def test_without_a_rerank_url_bm25_ranks_and_no_note_is_given(upstream, aws):
    route_all(upstream)
    result = run(search(args(query="cancer", expand=False), "alice", sets=ResultSets(Cache())))
    assert (result.ranker, result.ranker_note) == ("bm25", None)


def test_scores_in_order_of_documents_come_back_in_document_order():
    answer = {"results": [{"index": 1, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.2}]}
    assert rerank.check_scores(answer, 2) == [0.2, 0.9]


def test_an_error_raised_by_the_service_is_a_scholar_error_subclass():
    assert issubclass(rerank.ScoresRejectedError, ScholarError)
