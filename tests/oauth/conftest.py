"""The local server in OAuth mode (``SCHOLAR_AUTH_MODE=OAuth``), the fake upstream behind it, a CIMD host."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from scholar.core.catalogue import ALL_PROFILE
from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir
from tests.oauth.flow import Flow
from tests.oauth.tls import DocumentServer

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="package")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with DocumentServer(tmp_path_factory.mktemp("cimd")) as server:
        yield server


@pytest.fixture(scope="package")
def oauth_upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream(fixtures_dir()) as fake:
        yield fake


# Package scope: one LocalStack may run per process.
@pytest.fixture(scope="package")
def oauth_server(oauth_upstream: FakeUpstream, documents: DocumentServer) -> Iterator[object]:
    from scholar.local.server import LocalServer  # starts moto: only where a suite needs it
    from scholar.store import aws

    env = {
        "SCHOLAR_AUTH_MODE": "OAuth",
        "SCHOLAR_UPSTREAM_PROXY_BASE": oauth_upstream.base_url,
        "SCHOLAR_PACE_SCALE": "0",
        "SCHOLAR_RETRY_BUDGET_S": "1",
        "SCHOLAR_CONTACT_EMAIL": "oauth@example.org",
        "SCHOLAR_TEST_ALLOW_HOSTS": documents.host,
        "SCHOLAR_TEST_CA_FILE": str(documents.ca_file),
        "SCHOLAR_OAUTH_DCR_PER_HOUR": "1000",
        "SCHOLAR_OAUTH_REVOCATION_CHECK_S": "0",
        "SCHOLAR_PROFILE": ALL_PROFILE,  # as the suites' servers: the sign-in e2e calls tools outside the default
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
def flow(oauth_server: object) -> Iterator[Flow]:
    with httpx.Client(timeout=30, trust_env=False) as http:
        yield Flow(base=oauth_server.url.removesuffix("/mcp"), http=http)
