"""The optional remote reranker: the common ``/rerank`` request shape, checked scores, batches, a pause.

``SCHOLAR_RERANK_URL`` (source ``rerank``; ``/rerank`` is appended unless the URL ends with it),
``SCHOLAR_RERANK_API_KEY`` (Bearer) and ``SCHOLAR_RERANK_MODEL``. Requests are
``{"model", "query", "documents", "top_n"}``; answers ``{"results": [{"index", "relevance_score"}]}``.
Scores are used only when there is exactly one per document, each finite and within [0, 1]. A large
pool goes in batches of ``BATCH`` documents with the same query and model, so the scores are on one
scale and ranked together: no candidate is cut to fit the service. An unreachable service is paused
for ``PAUSE_S`` in this execution environment while the local model (BM25) ranks.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from typing import Any

from scholar.core.config import get_settings
from scholar.core.errors import ScholarError, UpstreamError
from scholar.sources import http
from scholar.sources.registry import base_url
from scholar.store.secrets import aget_secret

logger = logging.getLogger(__name__)

SOURCE = "rerank"
BATCH = 64
PAUSE_S = 300.0
_paused_until = 0.0


class ScoresRejectedError(UpstreamError):
    """The reranker answered, but its scores failed the checks (count, index, finite, range)."""


def configured() -> bool:
    return SOURCE in get_settings().source_urls


def paused() -> bool:
    return time.monotonic() < _paused_until


def resume() -> None:
    """Lift a pause (tests, and an operator who fixed the service)."""
    global _paused_until
    _paused_until = 0.0


def _pause() -> None:
    global _paused_until
    _paused_until = time.monotonic() + PAUSE_S


def model_name() -> str:
    return get_settings().rerank_model or "default"


def check_scores(data: Any, count: int) -> list[float]:
    """The scores of one batch in document order.

    Raises:
        ScoresRejectedError: not one score per document, an index out of range or repeated, or a score that is
            not a finite number in [0, 1].
    """
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or len(results) != count:
        answered = len(results) if isinstance(results, list) else "no"
        raise ScoresRejectedError(f"the reranker answered {answered} scores for {count} documents", source=SOURCE)
    scores: list[float | None] = [None] * count
    for item in results:
        index = item.get("index") if isinstance(item, dict) else None
        value = item.get("relevance_score", item.get("score")) if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or scores[index] is not None:
            raise ScoresRejectedError("the reranker answered a missing, repeated or out-of-range index",
                                      source=SOURCE)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 0.0 <= value <= 1.0:
            raise ScoresRejectedError("the reranker answered a score that is not a finite number in [0, 1]",
                                      source=SOURCE)
        scores[index] = float(value)
    return [s for s in scores if s is not None]


async def _batch(question: str, documents: Sequence[str]) -> list[float]:
    settings = get_settings()
    key = await aget_secret("rerank_api_key", settings)
    headers = {"Authorization": f"Bearer {key.get_secret_value()}"} if key else {}
    path = "" if base_url(SOURCE, settings).endswith("/rerank") else "/rerank"
    body = {"model": model_name(), "query": question, "documents": list(documents), "top_n": len(documents)}
    data = await http.post_json(SOURCE, path, body, what="rerank", headers=headers, budget_s=2.0)
    return check_scores(data, len(documents))


async def rerank(question: str, documents: Sequence[str]) -> list[float]:
    """One checked relevance score per document, in order, from the remote reranker.

    Raises:
        ScoresRejectedError: the service answered unusable scores (the local model ranks instead).
        ScholarError: the service is unreachable or refused; it is then paused for ``PAUSE_S``.
    """
    scores: list[float] = []
    try:
        for start in range(0, len(documents), BATCH):
            scores.extend(await _batch(question, documents[start : start + BATCH]))
    except ScoresRejectedError:
        raise  # the service answered: no pause, the local model ranks this search
    except ScholarError:
        _pause()  # unreachable, refusing or throttling: ask again in five minutes, not on every search
        raise
    return scores
