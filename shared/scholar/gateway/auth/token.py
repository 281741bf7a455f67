"""The token endpoint: authorization codes and rotating refresh tokens (OAuth 2.1 §4.1.3, §4.3; RFC 8707).

A code is redeemed once (a conditional write); a second use revokes the refresh family the first use started,
so the tokens it gave stop working (RFC 6749 §4.1.2). PKCE S256 is checked in constant time; the redirect URI
must be the one the code was sent to and the ``resource``, when sent, the one it was granted for. A refresh
token is ``<family>.<secret>``: presenting the family's current one rotates it (the old one is remembered), an
earlier one revokes the whole family (OAuth 2.1 §4.3.1 reuse detection). Every answer is ``no-store``.
"""

from __future__ import annotations

import hmac
import secrets
import time

from starlette.requests import Request
from starlette.responses import Response

from scholar.core.config import get_settings
from scholar.core.errors import UnavailableError
from scholar.gateway.auth.authorize import s256
from scholar.gateway.auth.clients import Client, authenticate_client
from scholar.gateway.auth.errors import (
    INVALID_GRANT,
    INVALID_REQUEST,
    INVALID_SCOPE,
    INVALID_TARGET,
    UNAUTHORIZED_CLIENT,
    UNSUPPORTED_GRANT_TYPE,
    OAuthError,
)
from scholar.gateway.auth.metadata import Endpoints
from scholar.gateway.auth.minting import mint_access_token
from scholar.gateway.auth.wire import base, json_response, read_form
from scholar.gateway.bearer import scopes
from scholar.store.auth import AuthStore, FamilyRecord, token_hash


def new_refresh_token(fid: str) -> str:
    return f"{fid}.{secrets.token_urlsafe(32)}"


def family_of(refresh_token: str) -> str | None:
    fid, sep, secret = refresh_token.partition(".")
    return fid if sep and fid and secret else None


async def _answer(family: FamilyRecord, refresh_token: str, scope: str, endpoints: Endpoints) -> Response:
    oauth = get_settings().oauth
    if not oauth.signing_key:
        raise UnavailableError("no token signing key is configured (SCHOLAR_OAUTH_SIGNING_KEY)",
                               reason="oauth_not_configured")
    access_token, claims = await mint_access_token(
        key_id=oauth.signing_key, issuer=endpoints.issuer, principal=family.principal, audience=family.resource,
        client_id=family.client_id, scope=scope, fid=family.fid, ttl_s=oauth.access_ttl_s,
    )
    return json_response({"access_token": access_token, "token_type": "Bearer", "expires_in": claims.exp - claims.iat,
                          "refresh_token": refresh_token, "scope": scope})


async def _authorization_code(form: dict[str, str], client: Client, endpoints: Endpoints,
                              store: AuthStore) -> Response:
    code, verifier = form.get("code"), form.get("code_verifier")
    if not code:
        raise OAuthError(INVALID_REQUEST, "code is required")
    first, record = await store.redeem_code(code)
    if record is None:
        raise OAuthError(INVALID_GRANT, "the code is unknown or expired")
    if not first:
        # RFC 6749 §4.1.2: a code used twice revokes what it gave; the family may not exist (nothing was issued).
        await store.revoke_family(record.family)
        raise OAuthError(INVALID_GRANT, "the code was already used; the tokens it gave are revoked")
    if record.client_id != client.client_id:
        raise OAuthError(INVALID_GRANT, "the code was issued to another client")
    if form.get("redirect_uri") != record.redirect_uri:
        raise OAuthError(INVALID_GRANT, "redirect_uri differs from the one the code was sent to")
    if not verifier:
        raise OAuthError(INVALID_REQUEST, "code_verifier is required (PKCE)")
    if not hmac.compare_digest(s256(verifier), record.code_challenge):
        raise OAuthError(INVALID_GRANT, "the code_verifier does not match the code_challenge")
    if form.get("resource") not in (None, record.resource):
        raise OAuthError(INVALID_TARGET, "the code was granted for another resource")
    refresh_token = new_refresh_token(record.family)
    now = int(time.time())
    family = FamilyRecord(fid=record.family, client_id=client.client_id, principal=record.principal,
                          scope=record.scope, resource=record.resource, current=token_hash(refresh_token),
                          created_at=now, expires_at=now + get_settings().oauth.refresh_ttl_s)
    await store.put_family(family)
    return await _answer(family, refresh_token, record.scope, endpoints)


async def _refresh(form: dict[str, str], client: Client, endpoints: Endpoints, store: AuthStore) -> Response:
    if "refresh_token" not in client.grant_types:
        raise OAuthError(UNAUTHORIZED_CLIENT, "the client did not register the refresh_token grant")
    presented = form.get("refresh_token") or ""
    fid = family_of(presented)
    if fid is None:
        raise OAuthError(INVALID_GRANT, "the refresh token is malformed")
    family = await store.get_family(fid)
    if family is None or family.client_id != client.client_id:
        raise OAuthError(INVALID_GRANT, "the refresh token is unknown, expired or another client's")
    wanted = scopes.parse(form.get("scope")) or scopes.parse(family.scope)
    if not wanted <= scopes.parse(family.scope):
        raise OAuthError(INVALID_SCOPE, "a refresh cannot widen the scope that was granted")
    if form.get("resource") not in (None, family.resource):
        raise OAuthError(INVALID_TARGET, "the refresh token was granted for another resource")
    rotated_token = new_refresh_token(fid)
    outcome = await store.rotate_refresh(fid, presented, rotated_token,
                                         int(time.time()) + get_settings().oauth.refresh_ttl_s)
    if outcome.outcome == "reused":
        await store.revoke_family(fid)
        raise OAuthError(INVALID_GRANT, "the refresh token was already used; every token of its family is revoked")
    if outcome.outcome != "rotated" or outcome.family is None:
        raise OAuthError(INVALID_GRANT, "the refresh token is unknown, revoked or expired")
    scope = " ".join(s for s in scopes.SUPPORTED if s in wanted)
    return await _answer(outcome.family, rotated_token, scope, endpoints)


async def token(request: Request) -> Response:
    """``POST /oauth/token``."""
    endpoints = Endpoints(base(request))
    store = AuthStore()
    form = await read_form(request)
    client = await authenticate_client(form, request.headers.get("authorization"), store)
    grant_type = form.get("grant_type")
    if grant_type == "authorization_code":
        return await _authorization_code(form, client, endpoints, store)
    if grant_type == "refresh_token":
        return await _refresh(form, client, endpoints, store)
    raise OAuthError(UNSUPPORTED_GRANT_TYPE, "grant_type must be authorization_code or refresh_token")
