"""Ranking: BM25 relevance plus explained signals, leaned by intent; one pass over the whole pool."""

from __future__ import annotations

from scholar.core.records import Paper
from scholar.families.research.search.rank import WEIGHTS, bm25_scores, score


def _pool() -> list[Paper]:
    return [
        Paper(title="Graph neural networks for molecules", year=2008, citationCount=5000, abstract="graph networks"),
        Paper(title="Graph neural networks for molecules revisited", year=2025, citationCount=3,
              abstract="graph networks"),
    ]


def _order(intent: str | None) -> list[int]:
    papers = _pool()
    ranked = score("graph neural networks molecules", papers, [1, 1], relevance=[1.0, 1.0], intent=intent,
                   this_year=2026, answering=2)
    return [s.index for s in ranked]


def test_the_recent_intent_puts_newer_work_first_and_foundational_puts_cited_work_first():
    assert _order("recent") == [1, 0]
    assert _order("foundational") == [0, 1]


def test_every_intent_weights_the_same_signals_and_sums_to_one():
    for weights in WEIGHTS.values():
        assert set(weights) == set(WEIGHTS["default"])
        assert abs(sum(weights.values()) - 1.0) < 1e-9


def test_bm25_scales_the_best_match_to_one_and_unrelated_papers_to_zero():
    papers = [Paper(title="Protein folding with deep learning"), Paper(title="Medieval trade routes in Europe"),
              Paper(title="Deep learning for protein structure")]
    scores = bm25_scores("protein folding", papers)
    assert scores[0] == 1.0 and scores[1] == 0.0 and 0 < scores[2] < 1


def test_the_signals_that_ranked_a_paper_are_reported_with_it():
    (first, _) = score("graph", _pool(), [2, 1], relevance=[0.5, 0.4], intent=None, this_year=2026, answering=2)
    assert set(first.signals) == {"relevance", "title", "citations", "sources", "recency"}
    assert first.signals["sources"] == 1.0


def test_the_survey_intent_raises_papers_that_read_as_surveys():
    papers = [Paper(title="Graph networks: results", year=2020), Paper(title="A survey of graph networks", year=2020)]
    ranked = score("graph networks", papers, [1, 1], relevance=[1.0, 0.9], intent="survey", this_year=2026,
                   answering=1)
    assert [s.index for s in ranked] == [1, 0] and ranked[0].signals["kind"] == 1.0
