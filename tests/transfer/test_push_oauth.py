"""``scholar library push`` signing in with OAuth: the local stack in OAuth mode with its sign-in stand-in, the
browser step done by the test (tests.transfer.child.SignIn follows the authorization URL to the loopback listener).
The sign-in is kept in a 0600 file under SCHOLAR_HOME, so the second push signs in no more."""

from __future__ import annotations

import pytest

from scholar.local.transfer import sign_in_file
from tests.fixtures.servers import StackOptions, local_server_fixture

pytestmark = pytest.mark.e2e

oauth_server = local_server_fixture(
    StackOptions(contact_email="push@example.org", retry_budget_s="1",
                 extra_env={"SCHOLAR_AUTH_MODE": "OAuth", "SCHOLAR_OAUTH_DCR_PER_HOUR": "1000"}),
    scope="module", name="oauth_server")


def test_push_signs_in_once_with_the_browser_and_then_uses_the_kept_sign_in(oauth_server, new_machine):
    laptop = new_machine()
    laptop.answer("seed-one")

    first = laptop.answer("oauth-push", oauth_server.url, "carol")
    second = laptop.answer("oauth-push", oauth_server.url, "none")  # a browser step now fails the push

    assert first["visits"] == 1 and first["report"]["counts"]["created"] == 1
    assert second["visits"] == 0 and second["report"]["counts"]["unchanged"] == 1
    kept = sign_in_file(laptop.home, oauth_server.url)
    assert kept.stat().st_mode & 0o777 == 0o600
    assert '"refresh_token"' in kept.read_text()
