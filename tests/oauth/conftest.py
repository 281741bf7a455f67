"""The local server in OAuth mode (``SCHOLAR_AUTH_MODE=OAuth``), the fake upstream behind it, a CIMD host."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.fixtures.loopback import loopback_client
from tests.fixtures.servers import StackOptions, fake_upstream_fixture, local_server_fixture
from tests.oauth.flow import Flow
from tests.oauth.tls import DocumentServer


@pytest.fixture(scope="package")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentServer]:
    with DocumentServer(tmp_path_factory.mktemp("cimd")) as server:
        yield server


oauth_upstream = fake_upstream_fixture(scope="package", name="oauth_upstream")


@pytest.fixture(scope="package")
def oauth_settings(documents: DocumentServer) -> dict[str, str]:
    """The stack in OAuth mode; the CIMD host passes the SSRF guard and its test CA is trusted."""
    return {
        "SCHOLAR_AUTH_MODE": "OAuth",
        "SCHOLAR_TEST_ALLOW_HOSTS": documents.host,
        "SCHOLAR_TEST_CA_FILE": str(documents.ca_file),
        "SCHOLAR_OAUTH_DCR_PER_HOUR": "1000",
        "SCHOLAR_OAUTH_REVOCATION_CHECK_S": "0",
    }


# Package scope: one LocalStack may run per process. The suites' profile: the sign-in e2e calls tools outside the
# default one.
oauth_server = local_server_fixture(
    StackOptions(upstream="oauth_upstream", contact_email="oauth@example.org", retry_budget_s="1", retry_wait_s=None,
                 settings_from=("oauth_settings",)),
    scope="package", name="oauth_server", backends=("aws", "local"))  # the whole flow on both backends (issue 40.8)


@pytest.fixture
def flow(oauth_server: object) -> Iterator[Flow]:
    with loopback_client() as http:
        yield Flow(base=oauth_server.url.removesuffix("/mcp"), http=http)


def kms_key_id() -> str:
    """The deployment's signing key (the AWS stand-in's KMS key), for tests that mint tokens with it; on the local
    backend (its key is a file of the data folder) they are skipped: the bearer check they probe is one code."""
    key = os.environ.get("SCHOLAR_OAUTH_SIGNING_KEY")
    if not key:
        pytest.skip("tokens minted with the AWS stand-in's KMS key; the local backend signs with its own key file")
    return key
