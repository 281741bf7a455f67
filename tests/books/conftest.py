"""Fixtures of the books tests, built on the shared ones in tests/conftest.py (``upstream``, ``aws``, ``env``)."""

from __future__ import annotations

import pytest
import respx

from tests.books.helpers import CONTACT
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env
from tests.fixtures_dir import fixtures_dir


@pytest.fixture
def upstream(upstream: respx.MockRouter, env: Env) -> respx.MockRouter:
    """The shared respx router, with no retry budget (faults surface at once), a contact email, and no stores."""
    fixtures_dir()  # skip early, with the reason, when the recorded fixtures are absent
    env.set(
        SCHOLAR_RETRY_BUDGET_S="0",
        SCHOLAR_CONTACT_EMAIL=CONTACT,
        SCHOLAR_CACHE_TABLE=None,
        SCHOLAR_ARTIFACT_BUCKET=None,
        SCHOLAR_GOOGLE_BOOKS_API_KEY=None,
        SCHOLAR_OPENLIBRARY_URL=None,
        SCHOLAR_COVERS_URL=None,
        SCHOLAR_GOOGLE_BOOKS_URL=None,
    )
    return upstream


@pytest.fixture
def stores(upstream: respx.MockRouter, aws: AwsResources) -> AwsResources:
    """moto's CacheTable and ArtifactBucket, configured (after ``upstream`` cleared them)."""
    return aws
