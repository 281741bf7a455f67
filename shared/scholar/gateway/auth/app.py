"""The authorization server as one Starlette app: the auth Lambda runs it under Mangum, ``make serve`` mounts it.

Every endpoint answers OAuth's own errors (``scholar.gateway.auth.errors``); a failure of ours (storage, KMS, the
upstream provider) is ``temporarily_unavailable`` (503) or ``server_error`` (500), logged without the request,
never a stack trace. The JSON endpoints answer CORS preflights (browser clients such as the MCP Inspector).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.core.errors import ScholarError, UnavailableError
from scholar.gateway.auth import authorize, connect, connect_proxy, register, revoke, token
from scholar.gateway.auth.errors import SERVER_ERROR, TEMPORARILY_UNAVAILABLE, OAuthError
from scholar.gateway.auth.metadata import (
    AUTHORIZE_PATH,
    CALLBACK_PATH,
    CONSENT_PATH,
    JWKS_PATH,
    REGISTER_PATH,
    REVOKE_PATH,
    TOKEN_PATH,
    Endpoints,
    authorization_server_metadata,
    protected_resource_metadata,
)
from scholar.gateway.auth.wire import CORS, CORS_PREFLIGHT, base, error_response, json_response
from scholar.gateway.bearer import urls

logger = logging.getLogger(__name__)

Endpoint = Callable[[Request], Awaitable[Response]]
METADATA_MAX_AGE = "public, max-age=300"


def _guarded(endpoint: Endpoint) -> Endpoint:
    async def run(request: Request) -> Response:
        if request.method == "OPTIONS":
            return Response(status_code=204, headers=CORS_PREFLIGHT)
        try:
            return await endpoint(request)
        except OAuthError as exc:
            return error_response(exc)
        except ScholarError as exc:
            logger.warning("the authorization server could not answer: %s", exc.message)
            error = TEMPORARILY_UNAVAILABLE if isinstance(exc, UnavailableError) and exc.retryable else SERVER_ERROR
            return error_response(OAuthError(error, "the authorization server cannot answer now; retry shortly",
                                             status=503 if error == TEMPORARILY_UNAVAILABLE else 500))
        except Exception:  # an endpoint's top level: a client gets OAuth's error, never a trace
            logger.exception("the authorization server failed")
            return error_response(OAuthError(SERVER_ERROR, "the authorization server failed", status=500))

    return run


def _public(body: dict) -> Response:
    return json_response(body, headers={**CORS, "cache-control": METADATA_MAX_AGE})


async def _server_metadata(request: Request) -> Response:
    return _public(authorization_server_metadata(Endpoints(base(request))))


async def _resource_metadata(request: Request) -> Response:
    return _public(protected_resource_metadata(Endpoints(base(request))))


async def _jwks(request: Request) -> Response:
    from scholar.gateway.auth.minting import public_jwks  # noqa: PLC0415  # reads KMS once

    key_id = get_settings().oauth.signing_key
    if not key_id:
        raise UnavailableError("no token signing key is configured", reason="oauth_not_configured")
    return _public(await off_loop(public_jwks, key_id))


def routes(*, local: bool = False) -> list[Route]:
    """The authorization server's routes (paths below the deployment's base URL)."""
    json_methods = ["GET", "OPTIONS"]
    return [
        Route(urls.PROTECTED_RESOURCE_PATH, _guarded(_resource_metadata), methods=json_methods),
        Route(f"{urls.PROTECTED_RESOURCE_PATH}{urls.MCP_PATH}", _guarded(_resource_metadata), methods=json_methods),
        Route(urls.AUTHORIZATION_SERVER_PATH, _guarded(_server_metadata), methods=json_methods),
        Route(urls.OPENID_CONFIGURATION_PATH, _guarded(_server_metadata), methods=json_methods),
        Route(JWKS_PATH, _guarded(_jwks), methods=json_methods),
        Route(AUTHORIZE_PATH, _guarded(partial(authorize.authorize, local=local)), methods=["GET"]),
        Route(CALLBACK_PATH, _guarded(partial(authorize.callback, local=local)), methods=["GET"]),
        Route(CONSENT_PATH, _guarded(partial(authorize.consent, local=local)), methods=["POST"]),
        Route(TOKEN_PATH, _guarded(token.token), methods=["POST", "OPTIONS"]),
        Route(REGISTER_PATH, _guarded(register.register), methods=["POST", "OPTIONS"]),
        Route(REVOKE_PATH, _guarded(revoke.revoke), methods=["POST", "OPTIONS"]),
        # One connect page per target that has one (a path per target, as template.yaml routes them).
        *(Route(connect.connect_path(target), _guarded(partial(handler, target=target)), methods=[method])
          for target in connect.FORMS
          for handler, method in ((connect.connect_form, "GET"), (connect.connect_submit, "POST"))),
        # The library proxy's page: the caller's proxy and sign-in for licensed full text (issue 38).
        Route(connect_proxy.PROXY_PATH, _guarded(connect_proxy.proxy_form), methods=["GET"]),
        Route(connect_proxy.PROXY_PATH, _guarded(connect_proxy.proxy_submit), methods=["POST"]),
    ]


def create_auth_app(*, local: bool = False) -> Starlette:
    """The authorization server.

    Args:
        local: built for ``make serve`` (the ``login_hint`` shortcut; still never inside Lambda).
    """
    return Starlette(routes=routes(local=local))
