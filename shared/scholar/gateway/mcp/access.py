"""The gateway's OAuth check (AuthMode=OAuth): who is calling, before the SDK sees the request.

A request carries an access token (``Authorization: Bearer``) or, for header clients, an API key:

- a token is verified offline (``scholar.gateway.bearer.verify``: our KMS key's signature, issuer, this MCP URL as
  audience, lifetime) and its refresh family must still be active (``scholar.gateway.bearer.revocation``, read at most
  every few seconds); the principal is the token's subject;
- an ``x-api-key`` header is checked against the stack's usage-plan keys, read every few minutes
  (``scholar.store.api_keys``; principal ``apikey:<id>`` as in ApiKey mode); locally it only names the caller;
- anything else is 401 with ``WWW-Authenticate: Bearer resource_metadata="…", scope="…"`` (RFC 9728 §5.1),
  plus ``error="invalid_token"`` when a token was sent. A token without the scope a tool needs is 403
  ``insufficient_scope`` naming that scope (RFC 6750 §3.1).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.core.errors import ScholarError
from scholar.gateway.bearer import scopes, urls
from scholar.gateway.bearer.revocation import family_active
from scholar.gateway.bearer.verify import TokenRefused, key_loaded, load_key, verify_access_token
from scholar.gateway.mcp.principal import BOUND_PRINCIPAL

logger = logging.getLogger(__name__)

OAUTH_MODE = "OAuth"
PRINCIPAL_SCOPE_KEY = BOUND_PRINCIPAL
SCOPES_SCOPE_KEY = "scholar.scopes"
ALL_SCOPES = frozenset(scopes.SUPPORTED)


@dataclass(frozen=True)
class Caller:
    """An authenticated caller: its principal and what it may do."""

    principal: str
    scopes: frozenset[str]


@dataclass(frozen=True)
class Challenge:
    """A refusal: status, the WWW-Authenticate value, and the message of the JSON-RPC error body."""

    status: int
    www_authenticate: str
    message: str


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def challenge(scope: dict[str, Any], *, error: str | None = None, description: str | None = None,
              needed: str = scopes.DEFAULT, status: int = 401) -> Challenge:
    """A 401 (or 403) naming where the resource metadata is and which scope to ask for."""
    base = urls.public_base(scope)
    parts = [f"resource_metadata={_quoted(urls.resource_metadata_url(base))}", f"scope={_quoted(needed)}"]
    if error:
        parts.append(f"error={_quoted(error)}")
    if description:
        parts.append(f"error_description={_quoted(description)}")
    message = description or "unauthorized: sign in (OAuth) or send an API key"
    return Challenge(status, "Bearer " + ", ".join(parts), message)


async def _from_token(scope: dict[str, Any], token: str) -> Caller | Challenge:
    oauth = get_settings().oauth
    if not oauth.signing_key:
        return challenge(scope, error="invalid_token", description="this deployment has no token signing key")
    base = urls.public_base(scope)
    try:
        if not key_loaded(oauth.signing_key):
            await off_loop(load_key, oauth.signing_key)  # once per environment
        claims = verify_access_token(token, key_id=oauth.signing_key, issuer=base, audience=urls.resource_url(base))
        if not await family_active(claims.fid):
            raise TokenRefused("revoked")
    except TokenRefused as exc:
        return challenge(scope, error="invalid_token", description=f"the access token was refused ({exc.reason})")
    except ScholarError as exc:
        logger.warning("the bearer check could not run: %s", exc.message)
        return challenge(scope, error="invalid_token", description="the token cannot be checked now; retry")
    return Caller(claims.sub, scopes.granted(claims.scope))


async def _from_api_key(scope: dict[str, Any], key: bytes) -> Caller | Challenge:
    if "aws.event" not in scope:  # locally a key only names the caller, as in every mode
        return Caller("key:" + hashlib.sha256(key).hexdigest()[:24], ALL_SCOPES)
    plan = get_settings().oauth.api_usage_plan
    key_id = None
    if plan:
        from scholar.store.api_keys import key_id_for  # noqa: PLC0415  # deployed header clients only

        try:
            key_id = await off_loop(key_id_for, plan, key.decode("latin-1"))
        except ScholarError as exc:
            logger.warning("the API key check could not run: %s", exc.message)
    if key_id is None:
        return challenge(scope, description="unauthorized: the API key is not valid here")
    return Caller(f"apikey:{key_id}", ALL_SCOPES)


async def authenticate(scope: dict[str, Any], headers: dict[bytes, bytes]) -> Caller | Challenge:
    """The caller of a ``POST /mcp`` in OAuth mode, or the challenge to answer."""
    authorization = headers.get(b"authorization", b"").decode("latin-1")
    kind, _, token = authorization.partition(" ")
    if kind.lower() == "bearer" and token.strip():
        return await _from_token(scope, token.strip())
    if headers.get(b"x-api-key"):
        return await _from_api_key(scope, headers[b"x-api-key"])
    return challenge(scope)


def bind(scope: dict[str, Any], caller: Caller) -> None:
    """Put the caller into the ASGI scope, where ``scholar.gateway.mcp.principal`` and the scope check read it."""
    scope[PRINCIPAL_SCOPE_KEY] = caller.principal
    scope[SCOPES_SCOPE_KEY] = caller.scopes


def missing_scope(scope: dict[str, Any], message: Any) -> Challenge | None:
    """403 when a ``tools/call`` needs a scope the caller's token lacks (only in OAuth mode, after ``bind``).

    A batch (a JSON array) is checked message by message, although the SDK refuses batches itself.
    """
    granted: frozenset[str] | None = scope.get(SCOPES_SCOPE_KEY)
    if isinstance(message, list):
        return next((denied for part in message if (denied := missing_scope(scope, part)) is not None), None)
    if granted is None or not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    from scholar.families import get_tool  # noqa: PLC0415  # the catalogue is loaded by then

    params = raw if isinstance(raw := message.get("params"), dict) else {}
    spec = get_tool(str(params.get("name", "")))
    if spec is None or scopes.needed(spec) in granted:
        return None
    needed = scopes.needed(spec)
    return challenge(scope, error="insufficient_scope", needed=" ".join(sorted(granted | {needed})), status=403,
                     description=f"{spec.name} needs the {needed} scope")
