"""Who is calling: the API Gateway request context when deployed, the x-api-key header locally.

In OAuth mode the gateway's own bearer check binds the caller (``scholar.gateway.mcp.access``). Otherwise, in AWS the
API key id (or the JWT subject) identifies the caller; a header the client sends is never
trusted there. A deployed request without an authenticated identity is refused (401, ``RequestGuard``)
unless the stack runs with ``AuthMode=None``, which sets ``SCHOLAR_SHARED_PRINCIPAL``: then every such
caller is the one ``shared`` principal and sees the same tasks (docs/security.md). Locally there is no
API Gateway, so the x-api-key header plays its part (hashed: the key itself is a secret and must not
land in the task table); without it the caller is ``local``.
"""

from __future__ import annotations

import hashlib
from typing import Any

LOCAL_PRINCIPAL = "local"
BOUND_PRINCIPAL = "scholar.principal"  # scholar.gateway.mcp.access.PRINCIPAL_SCOPE_KEY
SHARED_PRINCIPAL = "shared"


def is_deployed(scope: dict[str, Any]) -> bool:
    """Whether the request came through API Gateway (Mangum puts the event in the scope)."""
    return isinstance(scope.get("aws.event"), dict)


def authenticated_identity(scope: dict[str, Any]) -> str | None:
    """The identity API Gateway authenticated (API key id, JWT subject, authorizer principal), or None."""
    event = scope.get("aws.event")
    if not isinstance(event, dict):
        return None
    ctx = event.get("requestContext") or {}
    identity = ctx.get("identity") or {}
    if identity.get("apiKeyId"):
        return f"apikey:{identity['apiKeyId']}"
    authorizer = ctx.get("authorizer") or {}
    claims = authorizer.get("claims") or (authorizer.get("jwt") or {}).get("claims") or {}
    if claims.get("sub"):
        return f"jwt:{claims['sub']}"
    if authorizer.get("principalId"):
        return f"auth:{authorizer['principalId']}"
    return None


def principal_from_scope(scope: dict[str, Any]) -> str:
    """The caller's principal; deployed without an identity it is ``shared`` (only reached with AuthMode=None).

    In OAuth mode the gateway's bearer check has bound it already (``scholar.gateway.mcp.access.bind``).
    """
    bound = scope.get(BOUND_PRINCIPAL)
    if isinstance(bound, str):
        return bound
    if is_deployed(scope):
        return authenticated_identity(scope) or SHARED_PRINCIPAL
    for name, value in scope.get("headers") or []:
        if name == b"x-api-key" and value:
            return "key:" + hashlib.sha256(value).hexdigest()[:24]
    return LOCAL_PRINCIPAL
