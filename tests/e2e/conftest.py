"""End-to-end fixtures: the fake upstream (recorded responses) and the local server in front of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def fake_upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream(fixtures_dir()) as fake:
        yield fake


# Package scope: one LocalStack may run per process, and tests/infra starts its own after this package.
@pytest.fixture(scope="package")
def local_server(fake_upstream: FakeUpstream) -> Iterator[object]:
    from scholar.local.server import LocalServer
    from scholar.store import aws

    env = {
        "SCHOLAR_UPSTREAM_PROXY_BASE": fake_upstream.base_url,
        "SCHOLAR_PACE_SCALE": "0",
        "SCHOLAR_RETRY_BUDGET_S": "1",
        "SCHOLAR_RETRY_WAIT_S": "1",
        "SCHOLAR_CONTACT_EMAIL": "e2e@example.org",
    }
    server = LocalServer(template=REPO / "template.yaml", extra_env=env)
    server.start()
    aws.reset_clients()
    try:
        yield server
    finally:
        server.close()
        aws.reset_clients()


@pytest.fixture
def fake(fake_upstream: FakeUpstream) -> Iterator[FakeUpstream]:
    """The session's fake upstream, with faults and extra routes cleared after each test."""
    yield fake_upstream
    fake_upstream.reset()
