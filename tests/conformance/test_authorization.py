"""The official conformance suite's authorization-server scenarios against ``SCHOLAR_AUTH_MODE=OAuth``.

``authorization-server-metadata-endpoint`` reads our RFC 8414 metadata; ``authorization-code-grant`` prints the
authorization URL a person would open: the browser step is the local stand-in's ``login_hint`` shortcut, and
our redirect lands on the suite's own callback server, which then exchanges the code (PKCE, ``iss``,
``no-store``). The client is registered first (DCR) with that callback as its redirect URI.
"""

from __future__ import annotations

import httpx
import pytest

from tests.conformance.runner import free_port, run_authorization

pytestmark = pytest.mark.e2e


def _sign_in(url: str) -> None:
    with httpx.Client(timeout=30, trust_env=False, follow_redirects=True) as browser:
        browser.get(str(httpx.URL(url).copy_add_param("login_hint", "conformance")))


def test_the_authorization_server_passes_the_suites_authorization_scenarios(oauth_server):
    issuer = oauth_server.url.removesuffix("/mcp")
    port = free_port()
    registered = httpx.post(f"{issuer}/oauth/register", json={
        "redirect_uris": [f"http://127.0.0.1:{port}/callback"], "token_endpoint_auth_method": "none",
        "client_name": "MCP conformance suite"}, timeout=30)
    assert registered.status_code == 201, registered.text
    result = run_authorization(issuer, client_id=registered.json()["client_id"], resource=oauth_server.url,
                               port=port, sign_in=_sign_in)
    assert result.failures() == [], "\n".join(result.output[-40:])
    assert result.by_id() == {"authorization-server-metadata": "SUCCESS",
                              "authorization-server-metadata-cimd": "SUCCESS", "authorization-code-grant": "SUCCESS"}
    assert result.returncode == 0
