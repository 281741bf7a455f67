"""End-to-end fixtures: the fake upstream (recorded responses) and the local server in front of it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholar.fulltext import fetch
from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir
from tests.local_server import running_local_server
from tests.pdf.test_pipeline_machine import web_access


@pytest.fixture(scope="session")
def fake_upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream(fixtures_dir()) as fake:
        yield fake


# Package scope: one LocalStack may run per process, and tests/infra starts its own after this package.
@pytest.fixture(scope="package")
def local_server(fake_upstream: FakeUpstream) -> Iterator[object]:
    with running_local_server(fake_upstream, retry_budget_s="1", contact_email="e2e@example.org") as server:
        yield server


@pytest.fixture
def fake(fake_upstream: FakeUpstream) -> Iterator[FakeUpstream]:
    """The session's fake upstream, with faults and extra routes cleared after each test."""
    yield fake_upstream
    fake_upstream.reset()


@pytest.fixture
def web(fake: FakeUpstream) -> Iterator[FakeUpstream]:
    """PDF hosts that are not our sources reach the fake upstream (same process; the SSRF guard still vets them)."""
    fetch.set_web_access(web_access(fake))
    yield fake
    fetch.set_web_access(None)
