"""The reliability suite's stack: the fake upstream (recorded answers, injectable faults) behind the local server.

Small budgets make faults surface at once: no retries (``SCHOLAR_RETRY_BUDGET_S=0``), a 1 s wait before a
queued retry, and a 0.5 s HTTP timeout (so a "timeout" cell costs ~1 s, not the production 15 s).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from scholar import http
from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir
from tests.local_server import running_local_server

HTTP_TIMEOUT_S = 0.5


@pytest.fixture(scope="package")
def fake_upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream(fixtures_dir()) as fake:
        yield fake


@pytest.fixture(scope="package")
def short_timeout() -> Iterator[float]:
    """Every upstream client of this process answers or times out within HTTP_TIMEOUT_S."""
    patch = pytest.MonkeyPatch()
    patch.setattr(http, "TIMEOUT", httpx.Timeout(HTTP_TIMEOUT_S))
    http.set_transport_factory(None)  # drop clients built with the old timeout
    yield HTTP_TIMEOUT_S
    patch.undo()
    http.set_transport_factory(None)


# Package scope: one LocalStack may run per process (tests/local_server.py).
@pytest.fixture(scope="package")
def local_server(fake_upstream: FakeUpstream, short_timeout: float) -> Iterator[object]:
    with running_local_server(fake_upstream, retry_budget_s="0", contact_email="reliability@example.org") as server:
        yield server


@pytest.fixture
def fake(fake_upstream: FakeUpstream) -> Iterator[FakeUpstream]:
    """The package's fake upstream, with faults and extra routes cleared after each test."""
    yield fake_upstream
    fake_upstream.reset()
