"""The reliability suite's stack: the fake upstream (recorded answers, injectable faults) behind the local server.

Only the modules of this folder run against it. It is package-scoped (one LocalStack per process), and the
reliability modules beside this folder use the ``aws`` fixture, whose moto mock resets every moto backend of the
process when it starts, the stack's included: run on one worker while this server was up, one of them wiped the
stack's functions and the modules after it answered "Function not found". A folder of its own tears the server down
before any of them runs.

Small budgets make faults surface at once: no retries (``SCHOLAR_RETRY_BUDGET_S=0``), a 1 s wait before a
queued retry, and a 0.5 s HTTP timeout (so a "timeout" cell costs ~1 s, not the production 15 s).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from scholar.sources import http
from tests.fixtures.servers import StackOptions, fake_fixture, fake_upstream_fixture, local_server_fixture

HTTP_TIMEOUT_S = 0.5

fake_upstream = fake_upstream_fixture(scope="package")


@pytest.fixture(scope="package")
def short_timeout() -> Iterator[float]:
    """Every upstream client of this process answers or times out within HTTP_TIMEOUT_S."""
    patch = pytest.MonkeyPatch()
    patch.setattr(http, "TIMEOUT", httpx.Timeout(HTTP_TIMEOUT_S))
    http.set_transport_factory(None)  # drop clients built with the old timeout
    yield HTTP_TIMEOUT_S
    patch.undo()
    http.set_transport_factory(None)


# Package scope: one LocalStack may run per process.
local_server = local_server_fixture(
    StackOptions(contact_email="reliability@example.org", retry_budget_s="0", requires=("short_timeout",)),
    scope="package")
fake = fake_fixture()
