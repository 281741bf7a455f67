"""Fixtures of the papers suites."""

from __future__ import annotations

import pytest
import respx

from tests.fallbacks import answer_nothing


@pytest.fixture
def no_fallback_source(upstream: respx.MockRouter) -> respx.MockRouter:
    """The chain's later sources (Europe PMC, arXiv, INSPIRE-HEP) hold no paper (a test's own route of the same
    pattern replaces one of these)."""
    answer_nothing(upstream)
    return upstream
