"""End-to-end fixtures: the fake upstream (recorded responses) and the local server in front of it.

One server for the whole package (its modules share what it stores), on the AWS stand-in (moto + template.yaml);
``isolated/`` holds the modules that need a server of their own, and runs first; ``local/`` runs most of the
package's modules again on the local backend, with a package server of its own, before the package's.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholar.web import fetch
from tests.fakes.upstream import FakeUpstream
from tests.fakes.web import web_access
from tests.fixtures.servers import StackOptions, fake_fixture, fake_upstream_fixture, local_server_fixture

fake_upstream = fake_upstream_fixture(scope="session")
# Package scope: one LocalStack may run per process, and tests/infra starts its own after this package.
OPTIONS = StackOptions(contact_email="e2e@example.org", retry_budget_s="1", retry_wait_s="1")  # tests/e2e/local: the same on local
local_server = local_server_fixture(OPTIONS, scope="package")
fake = fake_fixture()


@pytest.fixture
def web(fake: FakeUpstream) -> Iterator[FakeUpstream]:
    """PDF hosts that are not our sources reach the fake upstream (same process; the SSRF guard still vets them)."""
    fetch.set_web_access(web_access(fake))
    yield fake
    fetch.set_web_access(None)
