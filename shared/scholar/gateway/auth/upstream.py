"""The upstream OpenID Connect provider people sign in at (Cognito, any issuer, or the local stand-in).

Authorization code flow with PKCE and a nonce: ``sign_in_url`` sends the person there; ``finish_sign_in``
exchanges the code at the provider's token endpoint (the client secret, when there is one, in HTTP Basic) and
verifies the ID token with PyJWT against the provider's JWKS: signature (RS256 or ES256 only), ``iss``, ``aud``
(our client id), ``exp``/``iat`` and the nonce we sent. Discovery and the JWKS are cached per environment; an
unknown ``kid`` fetches the JWKS once more (key rotation). The principal comes from ``iss`` and ``sub`` only.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import SecretStr

from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.core.errors import UnavailableError
from scholar.gateway.auth.errors import ACCESS_DENIED, OAuthError
from scholar.gateway.bearer.claims import principal_for

DISCOVERY_TTL_S = 3600.0
TIMEOUT = httpx.Timeout(10.0, connect=5.0)
ID_TOKEN_ALGORITHMS = ["RS256", "ES256"]
SCOPES = "openid email profile"
_discovered: dict[str, tuple[float, dict[str, Any]]] = {}
_jwks: dict[str, Any] = {}


@dataclass(frozen=True)
class Provider:
    """The upstream provider: its issuer and our client registration there."""

    issuer: str
    client_id: str
    client_secret: SecretStr | None


@dataclass(frozen=True)
class SignedIn:
    """Who signed in: our principal for them, and a label to show on the consent page."""

    principal: str
    label: str


def _client() -> httpx.AsyncClient:
    headers = {"User-Agent": get_settings().user_agent, "Accept": "application/json"}
    return httpx.AsyncClient(timeout=TIMEOUT, headers=headers, follow_redirects=False)


async def provider() -> Provider:
    """The configured provider: ``SCHOLAR_OIDC_ISSUER`` + client id + secret, or the stack's Cognito pool.

    Raises:
        UnavailableError: nothing is configured.
    """
    oauth = get_settings().oauth
    if oauth.cognito_user_pool and oauth.cognito_client_name:
        from scholar.store.cognito import app_client  # noqa: PLC0415  # boto3 only with a Cognito pool

        client_id, secret = await off_loop(app_client, oauth.cognito_user_pool, oauth.cognito_client_name)
        region = oauth.cognito_user_pool.split("_", 1)[0]
        return Provider(f"https://cognito-idp.{region}.amazonaws.com/{oauth.cognito_user_pool}", client_id, secret)
    if oauth.oidc_issuer and oauth.oidc_client_id:
        secret = await off_loop(get_settings().secrets.get, "oidc_client_secret")
        return Provider(oauth.oidc_issuer, oauth.oidc_client_id, secret)
    raise UnavailableError("no sign-in provider is configured (SCHOLAR_OIDC_ISSUER or the Cognito user pool)",
                           reason="oauth_not_configured")


async def _get_json(url: str) -> dict[str, Any]:
    try:
        async with _client() as client:
            response = await client.get(url)
    except httpx.HTTPError as exc:
        raise UnavailableError(f"the sign-in provider did not answer ({type(exc).__name__})", retryable=True) from exc
    if response.status_code != 200:
        raise UnavailableError(f"the sign-in provider answered {response.status_code}", retryable=True)
    data = response.json()
    if not isinstance(data, dict):
        raise UnavailableError("the sign-in provider answered something that is not a JSON object")
    return data


async def discovery(issuer: str) -> dict[str, Any]:
    """The provider's OpenID configuration (cached per environment)."""
    hit = _discovered.get(issuer)
    if hit is not None and time.monotonic() - hit[0] < DISCOVERY_TTL_S:
        return hit[1]
    document = await _get_json(f"{issuer}/.well-known/openid-configuration")
    if document.get("issuer") != issuer:
        raise UnavailableError("the sign-in provider's configuration names another issuer")
    _discovered[issuer] = (time.monotonic(), document)
    return document


async def sign_in_url(provider_: Provider, *, redirect_uri: str, state: str, nonce: str, code_challenge: str,
                      login_hint: str | None) -> str:
    """Where to send the person to sign in (the provider redirects back to ``redirect_uri`` with a code)."""
    from scholar.gateway.auth.wire import with_params  # noqa: PLC0415  # keeps this module free of Starlette

    config = await discovery(provider_.issuer)
    return with_params(str(config["authorization_endpoint"]), {
        "response_type": "code", "client_id": provider_.client_id, "redirect_uri": redirect_uri, "scope": SCOPES,
        "state": state, "nonce": nonce, "code_challenge": code_challenge, "code_challenge_method": "S256",
        "login_hint": login_hint,
    })


async def _signing_key(issuer: str, jwks_uri: str, kid: str | None) -> Any:
    import jwt  # noqa: PLC0415  # with the sign-in only

    for refresh in (False, True):
        if refresh or issuer not in _jwks:
            _jwks[issuer] = jwt.PyJWKSet.from_dict(await _get_json(jwks_uri))
        for key in _jwks[issuer].keys:
            if kid is None or key.key_id == kid:
                return key
    raise OAuthError(ACCESS_DENIED, "the sign-in provider's ID token is signed by an unknown key")


async def finish_sign_in(provider_: Provider, *, code: str, redirect_uri: str, verifier: str,
                         nonce: str) -> SignedIn:
    """Exchange the provider's code and verify its ID token.

    Raises:
        OAuthError: access_denied (the provider refused the code, or its ID token did not verify).
        UnavailableError: the provider could not be reached.
    """
    import jwt  # noqa: PLC0415  # with the sign-in only

    config = await discovery(provider_.issuer)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri, "code_verifier": verifier}
    auth: httpx.BasicAuth | None = None
    if provider_.client_secret is not None:
        auth = httpx.BasicAuth(provider_.client_id, provider_.client_secret.get_secret_value())
    else:
        form["client_id"] = provider_.client_id
    try:
        async with _client() as client:
            response = await client.post(str(config["token_endpoint"]), data=form,
                                         auth=httpx.USE_CLIENT_DEFAULT if auth is None else auth)
    except httpx.HTTPError as exc:
        raise UnavailableError(f"the sign-in provider did not answer ({type(exc).__name__})", retryable=True) from exc
    if response.status_code != 200:
        raise OAuthError(ACCESS_DENIED, f"the sign-in provider refused the sign-in ({response.status_code})")
    id_token = str(response.json().get("id_token") or "")
    try:
        header = jwt.get_unverified_header(id_token)
        key = await _signing_key(provider_.issuer, str(config["jwks_uri"]), header.get("kid"))
        claims = jwt.decode(id_token, key, algorithms=ID_TOKEN_ALGORITHMS, audience=provider_.client_id,
                            issuer=provider_.issuer, leeway=30, options={"require": ["exp", "iat", "sub", "nonce"]})
    except jwt.PyJWTError as exc:
        raise OAuthError(ACCESS_DENIED, f"the sign-in provider's ID token did not verify ({type(exc).__name__})") \
            from exc
    if not hmac.compare_digest(str(claims["nonce"]), nonce):
        raise OAuthError(ACCESS_DENIED, "the sign-in provider's ID token answers another sign-in (nonce)")
    label = str(claims.get("email") or claims.get("preferred_username") or claims.get("name") or "signed in")
    return SignedIn(principal=principal_for(provider_.issuer, str(claims["sub"])), label=label[:200])


def forget() -> None:
    """Drop the cached discovery documents and keys (tests)."""
    _discovered.clear()
    _jwks.clear()
