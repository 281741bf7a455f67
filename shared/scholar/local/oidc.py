"""A stand-in OpenID Connect provider for ``make serve`` (as moto stands in for AWS): sign in by name, no password.

Mounted at ``/local-oidc`` on the local server only; it refuses to exist inside Lambda and to answer a request
that came through API Gateway (the same "deployed" signal the gateway uses). An authorization request with
``login_hint`` signs that name in at once; without it a form asks for a name. It speaks the real protocol to the
authorization server (discovery, code + PKCE S256, client secret in HTTP Basic, an RS256 ID token with the
nonce, a JWKS), so ``scholar.gateway.auth.upstream`` runs exactly as against Cognito. Its key is made per process.
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from scholar.core.config import get_settings
from scholar.gateway.auth.authorize import s256
from scholar.gateway.auth.clients import basic_credentials
from scholar.gateway.auth.errors import OAuthError
from scholar.gateway.auth.pages import page
from scholar.gateway.auth.wire import error_response, query, read_form, redirect, with_params

PREFIX = "/local-oidc"
CODE_TTL_S = 120
ID_TOKEN_TTL_S = 300


@dataclass
class _Grant:
    login: str
    client_id: str
    redirect_uri: str
    nonce: str
    code_challenge: str
    expires_at: float


@dataclass
class LocalOidcProvider:
    """The stand-in provider: one client (``client_id`` / ``client_secret``) and one callback URL.

    Raises:
        RuntimeError: constructed inside Lambda (it must never run deployed).
    """

    issuer: str
    client_id: str
    client_secret: str
    redirect_uri: str
    _key: Any = field(init=False, repr=False)
    _kid: str = field(init=False)
    _codes: dict[str, _Grant] = field(init=False, default_factory=dict)
    _forms: dict[str, dict[str, str]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        if get_settings().in_lambda:
            raise RuntimeError("the local OpenID stand-in never runs inside Lambda")
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._kid = secrets.token_hex(8)

    def app(self) -> Starlette:
        """The stand-in's endpoints; a malformed request (body too large, not a form, bad Basic credentials) is
        answered with OAuth's error and status (400, 401, 413) as the real endpoints answer it, never a 500."""
        return Starlette(routes=[
            Route(f"{PREFIX}/.well-known/openid-configuration", self._discovery, methods=["GET"]),
            Route(f"{PREFIX}/authorize", self._authorize, methods=["GET", "POST"]),
            Route(f"{PREFIX}/token", self._token, methods=["POST"]),
            Route(f"{PREFIX}/jwks", self._jwks, methods=["GET"]),
        ], exception_handlers={OAuthError: _oauth_error})

    async def _discovery(self, request: Request) -> Response:
        _local_only(request)
        return JSONResponse({
            "issuer": self.issuer, "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token", "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"], "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        })

    async def _jwks(self, request: Request) -> Response:
        _local_only(request)
        jwk = RSAAlgorithm.to_jwk(self._key.public_key(), as_dict=True)
        return JSONResponse({"keys": [{**jwk, "kid": self._kid, "use": "sig", "alg": "RS256"}]})

    async def _authorize(self, request: Request) -> Response:
        _local_only(request)
        if request.method == "POST":
            form = await read_form(request)
            params = self._forms.pop(form.get("request_id", ""), None)
            login = form.get("login", "").strip()[:200]
            if params is None or not login:
                return JSONResponse({"error": "invalid_request"}, status_code=400)
            return self._signed_in(params, login)
        params = query(request)
        if params.get("client_id") != self.client_id or params.get("redirect_uri") != self.redirect_uri:
            return JSONResponse({"error": "invalid_request", "error_description": "unknown client or callback"},
                                status_code=400)
        if params.get("login_hint"):
            return self._signed_in(params, params["login_hint"].strip()[:200])
        request_id = secrets.token_urlsafe(16)
        self._forms[request_id] = params
        return page("signin.html", action=f"{self.issuer}/authorize", request_id=request_id)

    def _signed_in(self, params: dict[str, str], login: str) -> Response:
        code = secrets.token_urlsafe(24)
        self._codes[code] = _Grant(login=login, client_id=params["client_id"], redirect_uri=params["redirect_uri"],
                                   nonce=params.get("nonce", ""), code_challenge=params.get("code_challenge", ""),
                                   expires_at=time.monotonic() + CODE_TTL_S)
        return redirect(with_params(params["redirect_uri"], {"code": code, "state": params.get("state")}))

    def _client_ok(self, request: Request) -> bool:
        """Whether the request carries this client's Basic credentials (a malformed header is OAuthError 401)."""
        credentials = basic_credentials(request.headers.get("authorization"))
        if credentials is None:
            return False
        user, password = credentials
        return hmac.compare_digest(user.encode(), self.client_id.encode()) and \
            hmac.compare_digest(password.encode(), self.client_secret.encode())

    async def _token(self, request: Request) -> Response:
        _local_only(request)
        form = await read_form(request)
        grant = self._codes.pop(form.get("code", ""), None)
        if not self._client_ok(request):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        challenge = s256(form.get("code_verifier", ""))
        if (grant is None or grant.expires_at < time.monotonic() or grant.redirect_uri != form.get("redirect_uri")
                or not hmac.compare_digest(challenge, grant.code_challenge)):
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        now = int(time.time())
        email = grant.login if "@" in grant.login else f"{grant.login}@local.invalid"
        claims = {"iss": self.issuer, "sub": f"local-{grant.login}", "aud": self.client_id, "nonce": grant.nonce,
                  "email": email, "iat": now, "exp": now + ID_TOKEN_TTL_S}
        id_token = jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": self._kid})
        return JSONResponse({"id_token": id_token, "access_token": secrets.token_urlsafe(24), "token_type": "Bearer",
                             "expires_in": ID_TOKEN_TTL_S}, headers={"cache-control": "no-store"})


async def _oauth_error(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, OAuthError):  # registered for OAuthError only
        raise exc
    return error_response(exc)


def _local_only(request: Request) -> None:
    if "aws.event" in request.scope or get_settings().in_lambda:
        raise RuntimeError("the local OpenID stand-in never answers a deployed request")
