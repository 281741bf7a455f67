"""Bad input and attacks (issue 21, item 7): each refused with the RFC's error, nothing issued.

Token forgeries are made in the test with the local stack's own KMS key (an honest token for the wrong
audience, an expired one) or by hand (``alg: none``, HS256 keyed with our public key, a tampered payload).
No socket is opened to a private address: literal addresses are refused before connecting, and names go
through a fake resolver (``scholar.web.fetch.set_web_access``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import anyio
import httpx
import pytest

from scholar.gateway.auth.errors import (
    INVALID_CLIENT,
    INVALID_GRANT,
    INVALID_REQUEST,
    INVALID_SCOPE,
    INVALID_TARGET,
    UNSUPPORTED_RESPONSE_TYPE,
)
from scholar.gateway.bearer.scopes import READ
from scholar.web import fetch
from tests.oauth.conftest import kms_key_id
from tests.oauth.flow import REDIRECT, pkce

pytestmark = pytest.mark.e2e


def _redirect_params(answer: httpx.Response) -> dict[str, str]:
    assert answer.status_code == 302, answer.text
    location = answer.headers["location"]
    assert location.startswith(REDIRECT), location
    return dict(httpx.URL(location).params)


def _no_redirect(answer: httpx.Response, error: str | None = None) -> None:
    """A 400 page, no redirect; with ``error``, the page names that OAuth error code (the check that refused)."""
    assert answer.status_code == 400, answer.text
    assert "location" not in answer.headers
    if error is not None:
        assert f"{error}:" in answer.text, answer.text


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def _refused(flow, token: str, reason: str) -> str:
    """The gateway answers 401 ``invalid_token`` for ``token``, naming ``reason`` (the check that failed)."""
    answer = flow.mcp(token)
    assert answer.status_code == 401, answer.text
    header = answer.headers["www-authenticate"]
    assert 'error="invalid_token"' in header
    assert f'error_description="the access token was refused ({reason})"' in header, header
    return header


# ---------------------------------------------------------------- authorization requests
def test_a_request_without_pkce_is_invalid_request_and_gets_no_code(flow):
    client_id = flow.client_id()
    params = _redirect_params(flow.authorize(flow.authorize_params(client_id, "x" * 43, code_challenge=None)))
    assert params["error"] == INVALID_REQUEST and "code" not in params
    assert params["state"] == "st-1" and params["iss"] == flow.base


def test_the_plain_pkce_method_is_refused(flow):
    client_id = flow.client_id()
    verifier, _ = pkce()
    params = _redirect_params(flow.authorize(flow.authorize_params(client_id, verifier, code_challenge_method="plain")))
    assert params["error"] == INVALID_REQUEST and "code" not in params


def test_a_missing_state_is_refused(flow):
    client_id = flow.client_id()
    _, challenge = pkce()
    params = _redirect_params(flow.authorize(flow.authorize_params(client_id, challenge, state=None)))
    assert params["error"] == INVALID_REQUEST and "code" not in params


def test_a_callback_with_a_state_we_never_issued_is_refused_without_redirecting(flow):
    _no_redirect(flow.http.get(f"{flow.base}/oauth/callback", params={"state": "forged", "code": "x"}))


def test_a_response_type_other_than_code_is_refused(flow):
    client_id = flow.client_id()
    _, challenge = pkce()
    params = _redirect_params(flow.authorize(flow.authorize_params(client_id, challenge, response_type="token")))
    assert params["error"] == UNSUPPORTED_RESPONSE_TYPE


@pytest.mark.parametrize("resource", [None, "https://other.example/mcp", "http://127.0.0.1:1/mcp"])
def test_a_token_for_another_resource_or_none_is_invalid_target(flow, resource):
    client_id = flow.client_id()
    _, challenge = pkce()
    params = _redirect_params(flow.authorize(flow.authorize_params(client_id, challenge, resource=resource)))
    assert params["error"] == INVALID_TARGET and "code" not in params


def test_an_unknown_scope_is_invalid_scope(flow):
    client_id = flow.client_id()
    _, challenge = pkce()
    params = _redirect_params(flow.authorize(flow.authorize_params(client_id, challenge, scope="admin")))
    assert params["error"] == INVALID_SCOPE


@pytest.mark.parametrize("redirect", [REDIRECT + "/extra", REDIRECT.replace(":9/", ":10/"), REDIRECT + "/",
                                      "https://attacker.example/callback", REDIRECT.upper()])
def test_a_redirect_uri_not_exactly_registered_is_refused_without_redirecting(flow, redirect):
    client_id = flow.client_id()
    _, challenge = pkce()
    _no_redirect(flow.authorize(flow.authorize_params(client_id, challenge, redirect_uri=redirect)), INVALID_REQUEST)


def test_an_unknown_client_is_refused_without_redirecting(flow):
    _, challenge = pkce()
    _no_redirect(flow.authorize(flow.authorize_params("dcr_never-registered", challenge)), INVALID_CLIENT)


# ---------------------------------------------------------------- client metadata documents
@pytest.mark.parametrize("client_id", ["https://127.0.0.1/client.json", "https://10.0.0.7/client.json",
                                       "https://[::1]/client.json", "https://169.254.169.254/latest/meta-data/x",
                                       "http://example.org/client.json", "https://example.org/"])
def test_a_metadata_url_to_loopback_private_or_metadata_space_or_not_https_is_refused(flow, client_id):
    _, challenge = pkce()
    _no_redirect(flow.authorize(flow.authorize_params(client_id, challenge)), INVALID_CLIENT)


def test_a_metadata_url_whose_name_resolves_to_private_space_is_refused_before_connecting(flow):
    async def private(host: str, port: int) -> list[str]:
        return ["10.1.2.3"]

    fetch.set_web_access(fetch.WebAccess(resolver=private))
    try:
        _, challenge = pkce()
        answer = flow.authorize(flow.authorize_params("https://cimd.example.org/client.json", challenge))
        _no_redirect(answer, INVALID_CLIENT)
    finally:
        fetch.set_web_access(None)


def test_an_oversized_metadata_document_is_refused(flow, documents):
    url = documents.url("/big.json")
    body = json.dumps({"client_id": url, "redirect_uris": [REDIRECT], "padding": "x" * 6000}).encode()
    documents.serve("/big.json", body)
    _, challenge = pkce()
    _no_redirect(flow.authorize(flow.authorize_params(url, challenge)), INVALID_CLIENT)


def test_a_metadata_document_naming_another_client_is_refused(flow, documents):
    url = documents.url("/impostor.json")
    documents.serve("/impostor.json", json.dumps({"client_id": "https://claude.ai/client.json",
                                                  "redirect_uris": [REDIRECT]}).encode())
    _, challenge = pkce()
    _no_redirect(flow.authorize(flow.authorize_params(url, challenge)), INVALID_CLIENT)


def test_a_metadata_document_client_signs_in_and_its_redirect_uris_are_matched_exactly(flow, documents):
    url = documents.url("/good.json")
    documents.serve("/good.json", json.dumps({"client_id": url, "client_name": "Doc Client",
                                              "redirect_uris": [REDIRECT]}).encode(),
                    {"cache-control": "max-age=600"})
    code, verifier, params = flow.code(url)
    assert params["iss"] == flow.base
    assert flow.exchange(url, code, verifier).status_code == 200
    _, challenge = pkce()
    _no_redirect(flow.authorize(flow.authorize_params(url, challenge, redirect_uri=REDIRECT + "x")), INVALID_REQUEST)


# ---------------------------------------------------------------- the token endpoint
def test_a_wrong_code_verifier_is_invalid_grant_and_burns_the_code(flow):
    client_id = flow.client_id()
    code, verifier, _ = flow.code(client_id)
    wrong = flow.exchange(client_id, code, pkce()[0])
    assert wrong.status_code == 400 and wrong.json()["error"] == INVALID_GRANT
    assert "access_token" not in wrong.json()
    assert flow.exchange(client_id, code, verifier).json()["error"] == INVALID_GRANT


def test_a_missing_code_verifier_is_refused(flow):
    client_id = flow.client_id()
    code, _verifier, _ = flow.code(client_id)
    answer = flow.exchange(client_id, code, None)
    assert answer.status_code == 400 and answer.json()["error"] == INVALID_REQUEST


def test_a_reused_code_is_refused_and_the_tokens_it_gave_are_revoked(flow):
    client_id = flow.client_id()
    code, verifier, _ = flow.code(client_id)
    first = flow.exchange(client_id, code, verifier).json()
    assert flow.mcp(first["access_token"]).status_code == 200
    second = flow.exchange(client_id, code, verifier)
    assert second.status_code == 400 and second.json()["error"] == INVALID_GRANT
    assert "access_token" not in second.json()
    _refused(flow, first["access_token"], "revoked")
    refresh = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id)
    assert refresh.json()["error"] == INVALID_GRANT


def test_a_code_of_another_client_or_another_redirect_is_invalid_grant(flow):
    owner, thief = flow.client_id(), flow.client_id()
    code, verifier, _ = flow.code(owner)
    assert flow.exchange(thief, code, verifier).json()["error"] == INVALID_GRANT
    code, verifier, _ = flow.code(owner)
    answer = flow.token(grant_type="authorization_code", code=code, redirect_uri=REDIRECT + "/x", client_id=owner,
                        code_verifier=verifier)
    assert answer.json()["error"] == INVALID_GRANT


def test_a_token_request_for_another_resource_is_invalid_target(flow):
    client_id = flow.client_id()
    code, verifier, _ = flow.code(client_id)
    answer = flow.exchange(client_id, code, verifier, resource="https://other.example/mcp")
    assert answer.json()["error"] == INVALID_TARGET


def test_an_unknown_client_at_the_token_endpoint_is_invalid_client(flow):
    answer = flow.token(grant_type="authorization_code", code="x", redirect_uri=REDIRECT, client_id="dcr_nobody",
                        code_verifier="y" * 43)
    assert answer.status_code == 401 and answer.json()["error"] == INVALID_CLIENT


def test_a_reused_refresh_token_revokes_its_whole_family(flow):
    client_id = flow.client_id()
    first = flow.tokens(client_id)
    rotated = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id)
    assert rotated.status_code == 200
    fresh = rotated.json()
    assert fresh["refresh_token"] != first["refresh_token"]
    assert flow.mcp(fresh["access_token"]).status_code == 200
    replay = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"], client_id=client_id)
    assert replay.status_code == 400 and replay.json()["error"] == INVALID_GRANT
    assert flow.token(grant_type="refresh_token", refresh_token=fresh["refresh_token"],
                      client_id=client_id).json()["error"] == INVALID_GRANT
    _refused(flow, fresh["access_token"], "revoked")
    _refused(flow, first["access_token"], "revoked")


def test_a_refresh_cannot_widen_the_scope(flow):
    client_id = flow.client_id()
    code, verifier, _ = flow.code(client_id, scope=READ)
    tokens = flow.exchange(client_id, code, verifier).json()
    answer = flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=client_id,
                        scope="scholar:read scholar:write")
    assert answer.json()["error"] == INVALID_SCOPE


def test_a_parameter_sent_twice_is_invalid_request(flow):
    answer = flow.http.post(f"{flow.base}/oauth/token", content="grant_type=refresh_token&grant_type=x&client_id=a",
                            headers={"content-type": "application/x-www-form-urlencoded"})
    assert answer.json()["error"] == INVALID_REQUEST


# ---------------------------------------------------------------- access tokens at the gateway
def _mint(flow, **override):
    """An access token signed with the stack's own key, for the refresh family of a real sign-in (active).

    Every claim is one the gateway accepts unless ``override`` changes it, so a refusal can only come from the
    check the override defeats: a token of a family never issued would be refused as revoked whatever else it
    carried.
    """
    from scholar.gateway.auth.minting import mint_access_token

    signed_in = _claims(flow.tokens(flow.client_id())["access_token"])
    claims = {"key_id": kms_key_id(), "principal": signed_in["sub"],
              "client_id": signed_in["client_id"], "scope": READ, "fid": signed_in["fid"], "ttl_s": 600,
              "issuer": flow.base, "audience": flow.resource, **override}
    return anyio.run(lambda: mint_access_token(**claims))[0]


def test_a_token_minted_like_the_refused_ones_but_with_every_claim_right_is_accepted(flow):
    assert flow.mcp(_mint(flow)).status_code == 200


def test_a_token_for_another_audience_is_refused(flow):
    _refused(flow, _mint(flow, audience="https://other.example/mcp"), "audience")


def test_a_token_of_another_issuer_is_refused(flow):
    _refused(flow, _mint(flow, issuer="https://issuer.example"), "issuer")


def test_an_expired_token_is_refused(flow):
    _refused(flow, _mint(flow, ttl_s=-600), "expired")


def test_a_tampered_token_is_refused(flow):
    tokens = flow.tokens(flow.client_id())
    header, payload, signature = tokens["access_token"].split(".")
    claims = _claims(tokens["access_token"])
    claims["sub"] = "oidc:" + "f" * 32
    _refused(flow, f"{header}.{_b64(json.dumps(claims).encode())}.{signature}", "signature")


def test_an_alg_none_token_is_refused(flow):
    tokens = flow.tokens(flow.client_id())
    header, payload, _ = tokens["access_token"].split(".")
    kid = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["kid"]
    none = _b64(json.dumps({"alg": "none", "typ": "at+jwt", "kid": kid}).encode())
    _refused(flow, f"{none}.{payload}.", "algorithm")


def test_a_key_confusion_token_signed_hs256_with_our_public_key_is_refused(flow):
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_der_public_key

    from scholar.store.signing import public_key_der

    kid, der = public_key_der(kms_key_id())
    pem = load_der_public_key(der).public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    tokens = flow.tokens(flow.client_id())
    payload = tokens["access_token"].split(".")[1]
    header = _b64(json.dumps({"alg": "HS256", "typ": "at+jwt", "kid": kid}).encode())
    signature = _b64(hmac.new(pem, f"{header}.{payload}".encode(), hashlib.sha256).digest())
    _refused(flow, f"{header}.{payload}.{signature}", "algorithm")


def test_a_token_of_an_unknown_family_is_refused(flow):
    _refused(flow, _mint(flow, fid="never-issued"), "revoked")


def test_garbage_in_the_authorization_header_is_refused(flow):
    _refused(flow, "not-a-jwt", "malformed")


def test_a_read_token_calling_a_write_tool_is_403_naming_the_write_scope(flow):
    client_id = flow.client_id()
    code, verifier, _ = flow.code(client_id, scope=READ)
    tokens = flow.exchange(client_id, code, verifier).json()
    assert tokens["scope"] == READ
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "library_add", "arguments": {"identifier": "10.1073/pnas.1414271111"}}}
    answer = flow.mcp(tokens["access_token"], call)
    assert answer.status_code == 403
    header = answer.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in header and "scholar:write" in header
    listed = flow.mcp(tokens["access_token"])
    assert listed.status_code == 200  # reading needs only the read scope
    batch = flow.http.post(flow.resource, json=[call], headers={"authorization": f"Bearer {tokens['access_token']}",
                                                                "accept": "application/json, text/event-stream"})
    assert batch.status_code == 403
