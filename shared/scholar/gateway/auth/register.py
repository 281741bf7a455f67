"""Dynamic client registration (RFC 7591) for clients without a client metadata document, rate-limited per source.

Redirect URIs follow the one rule of ``scholar.gateway.auth.redirects`` (client metadata documents follow it too).
A confidential client (``client_secret_post`` / ``client_secret_basic``) gets a secret once, stored only as its
hash. Registrations expire after ``CLIENT_TTL_S`` (a client whose registration expired registers again).
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.requests import Request
from starlette.responses import Response

from scholar.core.config import get_settings
from scholar.gateway.auth.errors import INVALID_CLIENT_METADATA, OAuthError
from scholar.gateway.auth.redirects import check_redirect_uri
from scholar.gateway.auth.wire import json_response, read_body, source_ip
from scholar.gateway.bearer import scopes
from scholar.store.auth import AuthStore, ClientRecord, token_hash

CLIENT_TTL_S = 180 * 86400
RATE_WINDOW_S = 3600


class RegistrationRequest(BaseModel):
    """The RFC 7591 fields we accept (others are ignored)."""

    model_config = ConfigDict(extra="ignore")

    redirect_uris: list[str] = Field(min_length=1, max_length=20)
    client_name: str | None = Field(default=None, max_length=200)
    client_uri: str | None = Field(default=None, max_length=2000)
    logo_uri: str | None = Field(default=None, max_length=2000)
    grant_types: list[str] = Field(default_factory=lambda: ["authorization_code", "refresh_token"], max_length=5)
    response_types: list[str] = Field(default_factory=lambda: ["code"], max_length=5)
    token_endpoint_auth_method: Literal["none", "client_secret_post", "client_secret_basic"] = "client_secret_basic"
    scope: str | None = Field(default=None, max_length=1000)

    @field_validator("redirect_uris")
    @classmethod
    def _uris(cls, value: list[str]) -> list[str]:
        return [check_redirect_uri(uri) for uri in value]


async def register(request: Request) -> Response:
    """``POST /oauth/register``."""
    store = AuthStore()
    if not await store.allow(f"dcr#{source_ip(request)}", window_s=RATE_WINDOW_S,
                             limit=get_settings().oauth.dcr_per_hour):
        return json_response({"error": "temporarily_unavailable",
                              "error_description": "too many registrations from this address; retry later"},
                             429, {"retry-after": str(RATE_WINDOW_S)})
    try:
        body = json.loads(await read_body(request))
        wanted = RegistrationRequest.model_validate(body)
    except OAuthError:
        raise
    except (ValueError, ValidationError) as exc:  # a bad redirect URI leaves the validator as its own OAuthError
        first = exc.errors()[0] if isinstance(exc, ValidationError) else None
        where = ".".join(str(p) for p in first["loc"]) if first else "body"
        raise OAuthError(INVALID_CLIENT_METADATA, f"invalid client metadata ({where})") from exc
    if not set(wanted.grant_types) <= {"authorization_code", "refresh_token"} or \
            "authorization_code" not in wanted.grant_types:
        raise OAuthError(INVALID_CLIENT_METADATA, "grant_types: authorization_code (and refresh_token) only")
    if set(wanted.response_types) != {"code"}:
        raise OAuthError(INVALID_CLIENT_METADATA, "response_types: code only")
    if wanted.scope and not scopes.parse(wanted.scope) <= set(scopes.SUPPORTED):
        raise OAuthError(INVALID_CLIENT_METADATA, f"scope: {' '.join(scopes.SUPPORTED)}")
    now = int(time.time())
    secret = None if wanted.token_endpoint_auth_method == "none" else secrets.token_urlsafe(32)
    record = ClientRecord(
        client_id=f"dcr_{secrets.token_urlsafe(18)}", client_name=wanted.client_name,
        redirect_uris=wanted.redirect_uris, grant_types=wanted.grant_types,
        token_endpoint_auth_method=wanted.token_endpoint_auth_method,
        secret_hash=token_hash(secret) if secret else None, scope=wanted.scope, client_uri=wanted.client_uri,
        logo_uri=wanted.logo_uri, issued_at=now, expires_at=now + CLIENT_TTL_S,
    )
    await store.put_client(record)
    answer = record.model_dump(exclude_none=True, exclude={"secret_hash", "issued_at", "expires_at"})
    answer |= {"client_id_issued_at": now, "response_types": ["code"]}
    if secret:
        answer |= {"client_secret": secret, "client_secret_expires_at": 0}
    return json_response(answer, 201)
