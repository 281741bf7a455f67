"""The authorization server on the local stack: discovery from the 401, metadata, registration, sign-in, consent.

Each refusal is asserted by the RFC's error code (``scholar.gateway.auth.errors``), never by message text.
"""

from __future__ import annotations

import re

import httpx
import pytest

from scholar.gateway.auth.errors import ACCESS_DENIED, INVALID_REDIRECT_URI
from scholar.gateway.bearer.scopes import READ, WRITE
from tests.oauth.flow import REDIRECT, pkce

pytestmark = pytest.mark.e2e


def test_a_request_without_a_token_is_401_pointing_at_the_resource_metadata(flow):
    answer = flow.mcp(None)
    assert answer.status_code == 401
    header = answer.headers["www-authenticate"]
    assert header.startswith("Bearer ")
    assert f'resource_metadata="{flow.base}/.well-known/oauth-protected-resource/mcp"' in header
    assert f'scope="{READ} {WRITE}"' in header
    assert "error=" not in header  # no token was sent: nothing to call invalid


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"])
def test_the_protected_resource_metadata_describes_the_mcp_url(flow, path):
    metadata = flow.http.get(f"{flow.base}{path}").json()
    assert metadata["resource"] == flow.resource
    assert metadata["authorization_servers"] == [flow.base]
    assert metadata["scopes_supported"] == [READ, WRITE]
    assert metadata["bearer_methods_supported"] == ["header"]


@pytest.mark.parametrize("path", ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"])
def test_the_authorization_server_metadata_offers_pkce_s256_cimd_and_iss(flow, path):
    metadata = flow.http.get(f"{flow.base}{path}").json()
    assert metadata["issuer"] == flow.base
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["response_types_supported"] == ["code"]
    assert metadata["client_id_metadata_document_supported"] is True
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert {"registration_endpoint", "revocation_endpoint", "token_endpoint", "jwks_uri"} <= set(metadata)


def test_the_jwks_holds_the_signing_keys_public_half(flow):
    keys = flow.http.get(f"{flow.base}/oauth/jwks").json()["keys"]
    assert [(k["kty"], k["alg"], k["use"]) for k in keys] == [("RSA", "RS256", "sig")]
    assert "d" not in keys[0]


def test_a_sign_in_by_login_hint_returns_a_code_with_the_state_and_our_issuer(flow):
    client_id = flow.client_id()
    _code, _verifier, params = flow.code(client_id)
    assert params["state"] == "st-1"
    assert params["iss"] == flow.base


def test_tokens_are_bearer_short_lived_not_cached_and_carry_a_refresh_token(flow):
    client_id = flow.client_id()
    code, verifier, _ = flow.code(client_id)
    answer = flow.exchange(client_id, code, verifier)
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "no-store"
    body = answer.json()
    assert body["token_type"] == "Bearer"
    assert 0 < body["expires_in"] <= 3600
    assert body["scope"] == f"{READ} {WRITE}"
    assert body["refresh_token"]


def test_without_login_hint_the_person_signs_in_then_sees_the_consent_page_and_allows(flow):
    client_id = flow.client_id(client_name="Reading <b>Robot</b>")
    verifier, challenge = pkce()
    sign_in = flow.authorize(flow.authorize_params(client_id, challenge, login_hint=None))
    assert sign_in.status_code == 200 and "Sign in" in sign_in.text
    request_id = re.search(r'name="request_id" value="([^"]+)"', sign_in.text).group(1)
    back = flow.http.post(f"{flow.base}/local-oidc/authorize", data={"request_id": request_id, "login": "carol"})
    consent = flow.http.get(back.headers["location"])
    assert consent.status_code == 200
    assert "Reading &lt;b&gt;Robot&lt;/b&gt;" in consent.text  # the client's own words, escaped
    assert "127.0.0.1" in consent.text and READ in consent.text and WRITE in consent.text
    assert "carol@local.invalid" in consent.text
    assert "script-src" not in consent.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in consent.headers["content-security-policy"]
    consent_id = re.search(r'name="consent_id" value="([^"]+)"', consent.text).group(1)
    allowed = flow.http.post(f"{flow.base}/oauth/consent", data={"consent_id": consent_id, "decision": "allow"})
    params = dict(httpx.URL(allowed.headers["location"]).params)
    assert allowed.headers["location"].startswith(REDIRECT)
    assert flow.exchange(client_id, params["code"], verifier).status_code == 200


def test_a_declined_consent_is_access_denied_and_nothing_is_issued(flow):
    client_id = flow.client_id()
    verifier, challenge = pkce()
    sign_in = flow.authorize(flow.authorize_params(client_id, challenge, login_hint=None))
    request_id = re.search(r'name="request_id" value="([^"]+)"', sign_in.text).group(1)
    back = flow.http.post(f"{flow.base}/local-oidc/authorize", data={"request_id": request_id, "login": "dave"})
    consent = flow.http.get(back.headers["location"])
    consent_id = re.search(r'name="consent_id" value="([^"]+)"', consent.text).group(1)
    denied = flow.http.post(f"{flow.base}/oauth/consent", data={"consent_id": consent_id, "decision": "deny"})
    params = dict(httpx.URL(denied.headers["location"]).params)
    assert params["error"] == ACCESS_DENIED and "code" not in params
    assert params["state"] == "st-1" and params["iss"] == flow.base
    # The same consent cannot be answered twice.
    again = flow.http.post(f"{flow.base}/oauth/consent", data={"consent_id": consent_id, "decision": "allow"})
    assert again.status_code == 400 and "location" not in again.headers


def test_a_consent_from_another_browser_is_refused(flow, oauth_server):
    client_id = flow.client_id()
    _verifier, challenge = pkce()
    sign_in = flow.authorize(flow.authorize_params(client_id, challenge, login_hint=None))
    request_id = re.search(r'name="request_id" value="([^"]+)"', sign_in.text).group(1)
    back = flow.http.post(f"{flow.base}/local-oidc/authorize", data={"request_id": request_id, "login": "erin"})
    with httpx.Client(timeout=30, trust_env=False) as stranger:  # no sign-in cookie
        answer = stranger.get(back.headers["location"])
    assert answer.status_code == 400 and "location" not in answer.headers


@pytest.mark.parametrize("uri", ["javascript:alert(1)", "http://example.org/cb", "https://example.org/cb#frag",
                                 "data:text/html,hi"])
def test_registration_refuses_redirect_uris_that_are_not_safe_targets(flow, uri):
    answer = flow.register([uri])
    assert answer.status_code == 400
    assert answer.json()["error"] == INVALID_REDIRECT_URI


def test_a_confidential_registration_gets_a_secret_once_and_must_use_it(flow):
    answer = flow.register(token_endpoint_auth_method="client_secret_basic")
    body = answer.json()
    assert answer.status_code == 201 and body["client_secret"]
    code, verifier, _ = flow.code(body["client_id"])
    wrong = flow.http.post(f"{flow.base}/oauth/token", auth=(body["client_id"], "not-the-secret"), data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier})
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    code, verifier, _ = flow.code(body["client_id"])
    right = flow.http.post(f"{flow.base}/oauth/token", auth=(body["client_id"], body["client_secret"]), data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier})
    assert right.status_code == 200


def test_registrations_are_rate_limited_per_source(flow, monkeypatch):
    from scholar.core.config import get_settings

    monkeypatch.setenv("SCHOLAR_OAUTH_DCR_PER_HOUR", "2")
    get_settings.cache_clear()
    try:
        # The window may hold registrations of earlier tests; a limit of 2 is reached within 3 more.
        statuses = [flow.register().status_code for _ in range(3)]
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert statuses[-1] == 429
