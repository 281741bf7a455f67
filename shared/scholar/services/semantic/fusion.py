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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SEMANTIC_WEIGHT = 0.4


def scaled(values: np.ndarray, *, floor_at_min: bool) -> np.ndarray:
    """``values`` in [0, 1]: divided by the best (``floor_at_min`` False), or from the lowest to the highest."""
    import numpy as np  # noqa: PLC0415  # lazy: loads when something ranks

    if not len(values):
        return values
    low = float(values.min()) if floor_at_min else 0.0
    span = float(values.max()) - low
    return np.clip((values - low) / span, 0.0, None) if span > 0 else np.zeros_like(values)


def fuse(bm25: Sequence[float] | np.ndarray, cosine: Sequence[float] | np.ndarray,
         weight: float = SEMANTIC_WEIGHT) -> np.ndarray:
    """The fused relevance of each candidate, in [0, 1] (``bm25`` ≥ 0 raw or scaled, ``cosine`` in [-1, 1])."""
    import numpy as np  # noqa: PLC0415  # lazy, as above

    words, meaning = np.asarray(bm25, dtype=np.float64), np.asarray(cosine, dtype=np.float64)
    if words.shape != meaning.shape:
        raise ValueError("one BM25 score and one cosine per candidate")
    return (1.0 - weight) * scaled(words, floor_at_min=False) + weight * scaled(meaning, floor_at_min=True)
