"""Ranking one pool in one pass: a relevance model plus explained signals, weighted by intent.

Relevance is the local model (rank_bm25's Okapi BM25 over title and abstract, the title counted twice, fused in the
same pass with the bundled semantic model's cosine: scholar.services.semantic) or, when configured, a remote
reranker's checked scores (scholar.families.research.search.rerank); either way one model scores every candidate at
once, so scores from different passes or models are never averaged. The other signals are
reported next to it: ``title`` (the question is the title), ``citations`` (log-scaled against the pool's
best), ``sources`` (how many searches found it), ``recency`` (newer is higher) and ``kind`` (the intent's
words: survey, method, dataset). They lean the order; they are not judgements of quality.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from scholar.core.records import Paper
from scholar.families.research.search.identity import fold
from scholar.families.research.search.query import analyse, ranking_terms
from scholar.services.semantic.fusion import fuse

# Signal weights per intent (each signal is in [0, 1]; the score is their weighted sum).
WEIGHTS: dict[str, dict[str, float]] = {
    "default": {"relevance": 0.55, "title": 0.15, "citations": 0.12, "sources": 0.10, "recency": 0.08, "kind": 0.0},
    "foundational": {"relevance": 0.45, "title": 0.15, "citations": 0.30, "sources": 0.10, "recency": 0.0,
                     "kind": 0.0},
    "recent": {"relevance": 0.45, "title": 0.15, "citations": 0.05, "sources": 0.10, "recency": 0.25, "kind": 0.0},
    "survey": {"relevance": 0.45, "title": 0.10, "citations": 0.12, "sources": 0.08, "recency": 0.05, "kind": 0.20},
    "methods": {"relevance": 0.45, "title": 0.10, "citations": 0.12, "sources": 0.08, "recency": 0.05, "kind": 0.20},
    "datasets": {"relevance": 0.45, "title": 0.10, "citations": 0.12, "sources": 0.08, "recency": 0.05, "kind": 0.20},
}
KIND_WORDS = {
    "survey": re.compile(r"\b(survey|review|overview|tutorial|state of the art|primer)\b", re.I),
    "methods": re.compile(r"\b(method|methods|algorithm|we propose|framework|architecture|technique)\b", re.I),
    "datasets": re.compile(r"\b(dataset|datasets|benchmark|corpus|data set|collection)\b", re.I),
}
RECENCY_HALF_LIFE_Y = 6.0


@dataclass(frozen=True)
class Scored:
    """One candidate's score and the signals that made it."""

    index: int
    score: float
    signals: dict[str, float]


def document(paper: Paper) -> str:
    """The text the relevance model reads: title twice, then the abstract."""
    title = paper.title or ""
    return f"{title}. {title}. {paper.abstract or ''}"


def meaning_text(paper: Paper) -> str:
    """The text the semantic model reads: the title and the abstract."""
    return f"{paper.title or ''}. {paper.abstract or ''}"


def bm25_scores(question: str, papers: Sequence[Paper]) -> list[float]:
    """The local relevance model: BM25 fused with the semantic cosine, one score in [0, 1] each.

    The name is the one its callers know (search reports it as ranker ``bm25``); words alone are ``words_scores``.
    """
    words = words_scores(question, papers)
    if not papers:
        return words
    from scholar.services.semantic import model  # noqa: PLC0415  # lazy: the model loads when a search first ranks

    asked = model.embed([question])[0]
    vectors = model.embed([meaning_text(p) for p in papers], remember=True)  # public records: kept for the re-rank
    return [float(x) for x in fuse(words, vectors @ asked)]


def words_scores(question: str, papers: Sequence[Paper]) -> list[float]:
    """BM25 relevance of each paper to the question, scaled so the best is 1 (all 0 when nothing matches)."""
    from rank_bm25 import BM25Okapi  # noqa: PLC0415  # lazy: numpy loads only when a search ranks

    terms = ranking_terms(question) or analyse(question)
    corpus = [analyse(document(p)) or ["\u2205"] for p in papers]
    if not papers or not terms:
        return [0.0] * len(papers)
    raw = [float(x) for x in BM25Okapi(corpus).get_scores(terms)]
    best = max(raw)
    return [max(0.0, x) / best if best > 0 else 0.0 for x in raw]


def _recency(year: int | None, this_year: int) -> float:
    if year is None:
        return 0.0
    return 0.5 ** (max(0, this_year - year) / RECENCY_HALF_LIFE_Y)


def score(
    question: str,
    papers: Sequence[Paper],
    found_by: Sequence[int],
    *,
    relevance: Sequence[float],
    intent: str | None,
    this_year: int,
    answering: int,
) -> list[Scored]:
    """Score every candidate once; returns them best first (ties keep arrival order).

    Args:
        question: the question as written.
        papers: the merged records.
        found_by: how many searching sources found each record.
        relevance: the relevance model's score of each record, in [0, 1].
        intent: foundational | recent | survey | methods | datasets, or None.
        this_year: the year recency is measured from.
        answering: how many sources answered the search (the ``sources`` signal's scale).
    """
    weights = WEIGHTS[intent or "default"]
    wanted_title = fold(question.replace('"', ""))
    best_citations = max((p.citationCount or 0 for p in papers), default=0)
    kind = KIND_WORDS.get(intent or "")
    out = []
    for i, paper in enumerate(papers):
        signals = {
            "relevance": relevance[i],
            "title": 1.0 if paper.title and fold(paper.title) == wanted_title else 0.0,
            "citations": math.log1p(paper.citationCount or 0) / math.log1p(best_citations) if best_citations else 0.0,
            "sources": min(1.0, found_by[i] / max(1, answering)),
            "recency": _recency(paper.year, this_year),
            "kind": 1.0 if kind and kind.search(document(paper)) else 0.0,
        }
        total = sum(weights[name] * value for name, value in signals.items())
        out.append(Scored(i, total, {k: round(v, 4) for k, v in signals.items() if weights[k] or k == "relevance"}))
    return sorted(out, key=lambda s: (-s.score, s.index))
