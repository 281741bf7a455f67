"""The authorization endpoint, the return from the upstream sign-in, and the consent.

1. ``GET /oauth/authorize``: the client and its redirect URI are checked first; if either is wrong the person
   sees an error page and is *not* redirected (no open redirect). Every later refusal goes back to the client's
   redirect URI with ``error``, its ``state`` and our ``iss`` (RFC 9207). PKCE S256, ``state`` and the RFC 8707
   ``resource`` (this MCP URL) are required. The request is kept (``pending#``) and the person is sent to the
   upstream OpenID provider, with our own PKCE pair, a nonce, and a cookie that binds the sign-in to this browser.
2. ``GET /oauth/callback``: the provider's code is exchanged and its ID token verified
(``scholar.gateway.auth.upstream``);
   the person is then asked to consent (``consent.html``: the client's name, kind and redirect host, each scope).
3. ``POST /oauth/consent``: allow → a single-use code (five minutes) is sent to the client; deny → ``access_denied``.

Locally only (``make serve``, never inside Lambda or behind API Gateway): a request carrying ``login_hint`` is
consented at once, so scripted clients and the conformance suite finish the flow without a page.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time

from starlette.requests import Request
from starlette.responses import Response

from scholar.core.config import get_settings
from scholar.gateway.auth import upstream
from scholar.gateway.auth.clients import find_client
from scholar.gateway.auth.errors import (
    ACCESS_DENIED,
    INVALID_REQUEST,
    INVALID_SCOPE,
    INVALID_TARGET,
    UNAUTHORIZED_CLIENT,
    UNSUPPORTED_RESPONSE_TYPE,
    ErrorCode,
    OAuthError,
)
from scholar.gateway.auth.metadata import CALLBACK_PATH, CONSENT_PATH, OAUTH_PREFIX, Endpoints
from scholar.gateway.auth.pages import consent_page, error_page
from scholar.gateway.auth.wire import base, query, read_form, redirect, with_params
from scholar.gateway.bearer import scopes
from scholar.store.auth import AuthStore, CodeRecord, PendingAuthorization, token_hash

PENDING_TTL_S = 600
CODE_TTL_S = 300
BROWSER_COOKIE = "scholar_signin"
_CHALLENGE = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")  # RFC 7636 §4.2: base64url of a SHA-256, or longer
MAX_STATE = 2000


def s256(verifier: str) -> str:
    """The PKCE S256 challenge of a verifier (RFC 7636 §4.2)."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode()


def local_shortcuts(request: Request, local: bool) -> bool:
    """Whether the local-only conveniences apply: the app was built for ``make serve`` and this is not Lambda."""
    return local and "aws.event" not in request.scope and not get_settings().in_lambda


def _refuse(redirect_uri: str, state: str | None, issuer: str, error: ErrorCode, description: str) -> Response:
    return redirect(with_params(redirect_uri, {"error": error, "error_description": description, "state": state,
                                               "iss": issuer}))


def _checked_scope(requested: str | None) -> str:
    wanted = scopes.parse(requested) or scopes.parse(scopes.DEFAULT)
    unknown = wanted - set(scopes.SUPPORTED)
    if unknown:
        supported = " ".join(scopes.SUPPORTED)
        raise OAuthError(INVALID_SCOPE, f"unknown scope {sorted(unknown)[0]!r}; supported: {supported}")
    return " ".join(s for s in scopes.SUPPORTED if s in wanted | {scopes.READ})


def _check_request(params: dict[str, str], endpoints: Endpoints, grant_types: tuple[str, ...]) -> str:
    """The request's checks after the redirect URI is known good; returns the granted scope string."""
    if params.get("response_type") != "code":
        raise OAuthError(UNSUPPORTED_RESPONSE_TYPE, "only response_type=code is supported")
    if "authorization_code" not in grant_types:
        raise OAuthError(UNAUTHORIZED_CLIENT, "the client did not register the authorization_code grant")
    if not params.get("code_challenge"):
        raise OAuthError(INVALID_REQUEST, "PKCE is required: send code_challenge and code_challenge_method=S256")
    if params.get("code_challenge_method") != "S256":
        raise OAuthError(INVALID_REQUEST, "only code_challenge_method=S256 is supported")
    if not _CHALLENGE.match(params["code_challenge"]):
        raise OAuthError(INVALID_REQUEST, "code_challenge is not a base64url S256 challenge")
    resource = params.get("resource")
    if not resource:
        raise OAuthError(INVALID_TARGET, f"resource is required (RFC 8707): {endpoints.resource}")
    if resource != endpoints.resource:
        raise OAuthError(INVALID_TARGET, f"this server issues tokens only for {endpoints.resource}")
    return _checked_scope(params.get("scope"))


def _browser_cookie(response: Response, endpoints: Endpoints, value: str) -> None:
    path = (endpoints.base.split("://", 1)[-1].partition("/")[2] or "")
    response.set_cookie(BROWSER_COOKIE, value, max_age=PENDING_TTL_S, path=f"/{path}{OAUTH_PREFIX}".replace("//", "/"),
                        secure=endpoints.base.startswith("https://"), httponly=True, samesite="lax")


def _same_browser(request: Request, pending: PendingAuthorization) -> bool:
    presented = request.cookies.get(BROWSER_COOKIE, "")
    return bool(pending.browser) and hmac.compare_digest(token_hash(presented), pending.browser or "")


async def _take_pending(request: Request, store: AuthStore, pending_id: str | None, *,
                        signed_in: bool) -> PendingAuthorization | None:
    """The pending request ``pending_id`` names, taken (it answers once), or None unless it is at this step's stage.

    At the callback it must still wait for the sign-in (``signed_in=False``: it holds the upstream verifier); at the
    consent it must hold the person who signed in (``signed_in=True``). Either way, in the browser that started it.
    """
    pending = await store.take_pending(pending_id) if pending_id else None
    if pending is None or not _same_browser(request, pending):
        return None
    at_stage = pending.principal is not None if signed_in else pending.upstream_verifier is not None
    return pending if at_stage else None


async def authorize(request: Request, *, local: bool) -> Response:
    """``GET /oauth/authorize``."""
    endpoints = Endpoints(base(request))
    store = AuthStore()
    try:
        params = query(request)
        client = await find_client(params.get("client_id", ""), store)
        redirect_uri = client.redirect_for(params.get("redirect_uri"))
    except OAuthError as exc:
        return error_page("This application could not be verified", f"{exc.error}: {exc.description}")
    state = params.get("state") or None
    try:
        if state is None:
            raise OAuthError(INVALID_REQUEST, "state is required")
        if len(state) > MAX_STATE:
            raise OAuthError(INVALID_REQUEST, "state is too long")
        scope = _check_request(params, endpoints, client.grant_types)
    except OAuthError as exc:
        return _refuse(redirect_uri, state, endpoints.issuer, exc.error, exc.description)
    browser = secrets.token_urlsafe(24)
    pending = PendingAuthorization(
        id=secrets.token_urlsafe(24), client_id=client.client_id, client_name=client.name, client_kind=client.kind,
        redirect_uri=redirect_uri, state=state, code_challenge=params["code_challenge"], scope=scope,
        resource=endpoints.resource, login_hint=(params.get("login_hint") or "")[:200] or None,
        upstream_verifier=secrets.token_urlsafe(48), upstream_nonce=secrets.token_urlsafe(24),
        browser=token_hash(browser), expires_at=int(time.time()) + PENDING_TTL_S,
    )
    provider = await upstream.provider()
    sign_in = await upstream.sign_in_url(
        provider, redirect_uri=endpoints.url(CALLBACK_PATH), state=pending.id, nonce=pending.upstream_nonce or "",
        code_challenge=s256(pending.upstream_verifier or ""), login_hint=pending.login_hint,
    )
    await store.put_pending(pending)
    response = redirect(sign_in)
    _browser_cookie(response, endpoints, browser)
    return response


async def callback(request: Request, *, local: bool) -> Response:
    """``GET /oauth/callback``: back from the upstream provider."""
    endpoints = Endpoints(base(request))
    store = AuthStore()
    try:
        params = query(request)
    except OAuthError as exc:
        return error_page("This sign-in cannot be completed", exc.description)
    pending = await _take_pending(request, store, params.get("state"), signed_in=False)
    if pending is None:
        return error_page("This sign-in has expired or was already used",
                          "Sign-ins must be finished within ten minutes, once, in the browser that started them.")
    if "error" in params or not params.get("code"):
        return _refuse(pending.redirect_uri, pending.state, endpoints.issuer, ACCESS_DENIED,
                       "the sign-in was cancelled or refused")
    try:
        signed_in = await upstream.finish_sign_in(
            await upstream.provider(), code=params["code"], redirect_uri=endpoints.url(CALLBACK_PATH),
            verifier=pending.upstream_verifier or "", nonce=pending.upstream_nonce or "",
        )
    except OAuthError as exc:
        return _refuse(pending.redirect_uri, pending.state, endpoints.issuer, exc.error, exc.description)
    signed = pending.model_copy(update={"principal": signed_in.principal, "user_label": signed_in.label,
                                        "upstream_verifier": None, "upstream_nonce": None})
    if local_shortcuts(request, local) and pending.login_hint:
        return await _grant(signed, endpoints, store)
    consent = signed.model_copy(update={"id": secrets.token_urlsafe(24),
                                        "expires_at": int(time.time()) + PENDING_TTL_S})
    await store.put_pending(consent)
    return consent_page(action=endpoints.url(CONSENT_PATH), consent_id=consent.id, client_name=consent.client_name,
                        client_kind=consent.client_kind, redirect_uri=consent.redirect_uri,
                        scopes=consent.scope.split(" "), user=consent.user_label or "")


async def consent(request: Request, *, local: bool) -> Response:
    """``POST /oauth/consent``: the person's answer."""
    endpoints = Endpoints(base(request))
    store = AuthStore()
    try:
        form = await read_form(request)
    except OAuthError as exc:
        return error_page("This consent cannot be read", exc.description)
    pending = await _take_pending(request, store, form.get("consent_id"), signed_in=True)
    if pending is None:
        return error_page("This consent has expired or was already answered",
                          "Consents must be answered within ten minutes, once, in the browser that signed in.")
    if form.get("decision") != "allow":
        return _refuse(pending.redirect_uri, pending.state, endpoints.issuer, ACCESS_DENIED, "the person declined")
    return await _grant(pending, endpoints, store)


async def _grant(pending: PendingAuthorization, endpoints: Endpoints, store: AuthStore) -> Response:
    code = secrets.token_urlsafe(32)
    record = CodeRecord(client_id=pending.client_id, redirect_uri=pending.redirect_uri,
                        code_challenge=pending.code_challenge, scope=pending.scope, resource=pending.resource,
                        principal=pending.principal or "", family=secrets.token_urlsafe(16),
                        expires_at=int(time.time()) + CODE_TTL_S)
    await store.put_code(code, record)
    return redirect(with_params(pending.redirect_uri, {"code": code, "state": pending.state, "iss": endpoints.issuer}))
