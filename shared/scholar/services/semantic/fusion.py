"""One relevance per candidate from two models: BM25 (words) and the bundled semantic model (meaning).

Each score is scaled over the pool being ranked (BM25 by its best, so 1 is the best match and 0 no word in
common; the cosine from the pool's lowest to its highest) and the two are summed with ``SEMANTIC_WEIGHT`` on
the semantic side. One pass, one score per candidate: nothing from another pass or model is averaged in.

``SEMANTIC_WEIGHT`` was chosen on the even-numbered queries of the development relevance set only (CSFCube,
``make bench`` → benchmarks/relevance_bench.py, which reports the odd-numbered half it was not chosen on as well):
nDCG@20 there was flat from 0.3 to 0.5 (0.556 to 0.558, BM25 alone 0.530); 0.4 is the middle of that plateau.
"""

from __future__ import annotations

from collections.abc import Sequence

SEMANTIC_WEIGHT = 0.4


def scaled(values: Sequence[float], *, floor_at_min: bool) -> list[float]:
    """``values`` in [0, 1]: divided by the best (``floor_at_min`` False), or from the lowest to the highest."""
    if not values:
        return []
    top = max(values)
    low = min(values) if floor_at_min else 0.0
    span = top - low
    return [max(0.0, (v - low) / span) if span > 0 else 0.0 for v in values]


def fuse(bm25: Sequence[float], cosine: Sequence[float], weight: float = SEMANTIC_WEIGHT) -> list[float]:
    """The fused relevance of each candidate, in [0, 1] (``bm25`` ≥ 0 raw or scaled, ``cosine`` in [-1, 1])."""
    if len(bm25) != len(cosine):
        raise ValueError("one BM25 score and one cosine per candidate")
    words = scaled(bm25, floor_at_min=False)
    meaning = scaled(cosine, floor_at_min=True)
    return [(1.0 - weight) * w + weight * m for w, m in zip(words, meaning, strict=True)]
