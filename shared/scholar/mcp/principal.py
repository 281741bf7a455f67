"""Who is calling: the API Gateway request context when deployed, the x-api-key header locally.

In AWS the API key id (or the JWT subject) identifies the caller; a header the client sends is never
trusted there. Locally there is no API Gateway, so the x-api-key header plays its part (hashed: the
key itself is a secret and must not land in the task table); without it the caller is ``local``.
"""

from __future__ import annotations

import hashlib
from typing import Any

LOCAL_PRINCIPAL = "local"


def principal_from_scope(scope: dict[str, Any]) -> str:
    event = scope.get("aws.event")
    if isinstance(event, dict):
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
        return "anonymous"
    for name, value in scope.get("headers") or []:
        if name == b"x-api-key" and value:
            return "key:" + hashlib.sha256(value).hexdigest()[:24]
    return LOCAL_PRINCIPAL
