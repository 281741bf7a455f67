"""Fixtures of the security tests: the fake upstream behind the proxy base, reset around every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholar import http
from tests.conftest import Env
from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir

CONTACT = "security-tests@example.org"


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeUpstream]:
    with FakeUpstream(fixtures_dir()) as fake:
        yield fake


@pytest.fixture
def fake(fake_server: FakeUpstream, env: Env) -> Iterator[FakeUpstream]:
    """Every source under the fake upstream (``SCHOLAR_UPSTREAM_PROXY_BASE``), no cache, no retries."""
    fake_server.reset()
    env.set(
        SCHOLAR_UPSTREAM_PROXY_BASE=fake_server.base_url,
        SCHOLAR_RETRY_BUDGET_S="0",
        SCHOLAR_CONTACT_EMAIL=CONTACT,
        SCHOLAR_CACHE_TABLE=None,
        SCHOLAR_TASK_TABLE=None,
        SCHOLAR_ARTIFACT_BUCKET=None,
    )
    http.set_transport_factory(None)
    yield fake_server
    fake_server.reset()
    http.set_transport_factory(None)
