"""What every OAuth endpoint reads and answers: forms, JSON without caching, redirects, CORS, the caller's address."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from starlette.requests import Request
from starlette.responses import Response

from scholar.core.numerals import ascii_int
from scholar.gateway.auth.errors import INVALID_REQUEST, OAuthError
from scholar.gateway.bearer import urls

MAX_BODY_BYTES = 64 * 1024
NO_STORE = {"cache-control": "no-store", "pragma": "no-cache"}
# The JSON endpoints are called by clients running in browsers too (the MCP Inspector): no credentials, any origin.
CORS = {"access-control-allow-origin": "*"}
CORS_PREFLIGHT = {**CORS, "access-control-allow-methods": "GET, POST, OPTIONS",
                  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
                  "access-control-max-age": "600"}


def base(request: Request) -> str:
    """This deployment's base URL as the request reached it (``scholar.gateway.bearer.urls.public_base``)."""
    return urls.public_base(request.scope)


async def read_body(request: Request) -> bytes:
    """The body, refused over ``MAX_BODY_BYTES`` (declared or received).

    Raises:
        OAuthError: invalid_request.
    """
    declared = ascii_int(request.headers.get("content-length", ""))
    if declared is not None and declared > MAX_BODY_BYTES:
        raise OAuthError(INVALID_REQUEST, f"the request body is over {MAX_BODY_BYTES} bytes", status=413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise OAuthError(INVALID_REQUEST, f"the request body is over {MAX_BODY_BYTES} bytes", status=413)
    return body


def single_valued(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """Parameters as a dict; a parameter sent twice is refused (RFC 6749 §3.1, §3.2).

    Raises:
        OAuthError: invalid_request.
    """
    found: dict[str, str] = {}
    for name, value in pairs:
        if name in found:
            raise OAuthError(INVALID_REQUEST, f"the parameter {name!r} is repeated")
        found[name] = value
    return found


async def read_form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body as single-valued parameters.

    Raises:
        OAuthError: invalid_request (another content type, too large, a repeated parameter).
    """
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/x-www-form-urlencoded":
        raise OAuthError(INVALID_REQUEST, "the body must be application/x-www-form-urlencoded")
    body = await read_body(request)
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError as exc:
        raise OAuthError(INVALID_REQUEST, "the body is not UTF-8") from exc
    return single_valued(pairs)


def query(request: Request) -> dict[str, str]:
    """The query parameters, single-valued.

    Raises:
        OAuthError: invalid_request (a repeated parameter).
    """
    return single_valued(parse_qsl(request.url.query, keep_blank_values=True))


def json_response(body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """JSON that no cache keeps (tokens, errors, registrations), readable by browser clients."""
    return Response(json.dumps(body), status_code=status, media_type="application/json",
                    headers={**NO_STORE, **CORS, **(headers or {})})


def error_response(error: OAuthError) -> Response:
    headers = {"www-authenticate": 'Basic realm="oauth"'} if error.status == 401 else {}
    return json_response(error.body(), error.status, headers)


def with_params(uri: str, params: dict[str, str | None]) -> str:
    """``uri`` with ``params`` added to its query (its own query kept, as RFC 6749 §3.1.2 requires)."""
    parts = urlsplit(uri)
    added = urlencode({k: v for k, v in params.items() if v is not None})
    query_string = f"{parts.query}&{added}" if parts.query else added
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query_string, parts.fragment))


# Characters a URI may hold as they are (RFC 3986 reserved and unreserved, and "%" of what is encoded already).
_URI_CHARS = ":/?#[]@!$&'()*+,;=-._~%"


def redirect(location: str) -> Response:
    """A 302 to ``location`` that is never cached (it carries codes or errors).

    Anything outside a URI's characters is percent-encoded (as UTF-8): a header carries Latin-1 at most, and a
    redirect URI stored before the ASCII rule (``scholar.gateway.auth.redirects``) must still get an answer.
    """
    return Response(status_code=302, headers={"location": quote(location, safe=_URI_CHARS), **NO_STORE})


def source_ip(request: Request) -> str:
    """The caller's address: API Gateway's (deployed; a client cannot set it), else the socket peer."""
    event = request.scope.get("aws.event")
    if isinstance(event, dict):
        identity = (event.get("requestContext") or {}).get("identity") or {}
        http = (event.get("requestContext") or {}).get("http") or {}
        return str(identity.get("sourceIp") or http.get("sourceIp") or "unknown")
    return request.client.host if request.client else "unknown"
