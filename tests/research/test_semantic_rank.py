"""The local relevance model of search (issue 39, item 2): BM25 fused in one pass with the bundled semantic model.

The set below is SYNTHETIC (written for this test, no relevance data): each question has papers that say it in
other words (relevant) and papers that share its words but not its meaning. A broken fusion (the semantic side
lost, mis-scaled or mis-ordered) ranks no better than words alone and goes red.
"""

from __future__ import annotations

import math

import pytest

from scholar.core.records import Paper
from scholar.families.research.search.rank import bm25_scores, words_scores
from scholar.services.semantic import model
from scholar.services.semantic.fusion import fuse

SYNTHETIC = [
    ("heart attack treatment", [
        ("Myocardial infarction therapy: outcomes of early intervention in cardiac patients", 2),
        ("Managing acute coronary events with thrombolytic drugs", 2),
        ("Panic attack prevalence among university students", 0),
        ("Treatment of wastewater in urban plants", 0),
        ("Heart rate variability in trained athletes", 0),
    ]),
    ("teaching children to read", [
        ("Early literacy instruction in primary school classrooms", 2),
        ("Phonics lessons and reading fluency of young pupils", 2),
        ("Teaching assistants in university physics courses", 0),
        ("Children's exposure to air pollution", 0),
        ("How to read a crystal structure", 0),
    ]),
    ("machine translation of low-resource languages", [
        ("Neural translation for languages with little parallel text", 2),
        ("Bilingual lexicon induction without supervision for rare tongues", 1),
        ("Machine tools maintenance scheduling", 0),
        ("Low-resource scheduling in embedded systems", 0),
        ("Languages of the Amazon basin: a field survey", 0),
    ]),
]


def _ndcg(scores: list[float], grades: list[int]) -> float:
    order = sorted(range(len(grades)), key=lambda i: -scores[i])
    dcg = sum((2 ** grades[i] - 1) / math.log2(r + 2) for r, i in enumerate(order))
    ideal = sum((2**g - 1) / math.log2(r + 2) for r, g in enumerate(sorted(grades, reverse=True)))
    return dcg / ideal


def _mean(scorer) -> float:
    total = 0.0
    for question, docs in SYNTHETIC:
        papers = [Paper(title=title) for title, _ in docs]
        total += _ndcg(scorer(question, papers), [grade for _, grade in docs])
    return total / len(SYNTHETIC)


def test_the_fusion_ranks_papers_that_say_it_in_other_words_above_those_that_only_share_words():
    words, fused = _mean(words_scores), _mean(bm25_scores)

    assert fused > words + 0.1, (words, fused)


def test_the_fusion_is_one_score_in_0_1_per_candidate():
    scores = fuse([0.0, 3.2, 1.6], [0.1, 0.5, -0.2])

    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    assert scores[1] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="one BM25 score and one cosine"):
        fuse([1.0], [0.1, 0.2])


def test_vectors_are_unit_length_and_an_empty_text_is_the_zero_vector():
    vectors = model.embed(["graph neural networks", ""])

    assert float(vectors[0] @ vectors[0]) == pytest.approx(1.0, abs=1e-5)
    assert not vectors[1].any()
