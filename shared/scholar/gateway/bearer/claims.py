"""The access token: an RS256 JWT (RFC 9068 ``at+jwt``) whose subject is our principal for the person."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, Field

ALGORITHM = "RS256"
TOKEN_TYPE = "at+jwt"
PRINCIPAL_PREFIX = "oidc:"


class AccessClaims(BaseModel):
    """The claims every access token carries (all required: a token without one is refused)."""

    iss: str
    sub: str = Field(pattern=r"^oidc:[0-9a-f]{32}$")
    aud: str
    client_id: str
    scope: str
    fid: str = Field(description="the refresh family the token belongs to (revoked together)")
    jti: str
    iat: int
    exp: int


def principal_for(issuer: str, subject: str) -> str:
    """The principal of a person signed in at an OpenID provider: derived from its issuer and ``sub``, never
    from an email address (reassignable) and never the raw subject (unbounded, and shared across issuers)."""
    digest = hashlib.sha256(f"{issuer}\n{subject}".encode()).hexdigest()[:32]
    return f"{PRINCIPAL_PREFIX}{digest}"
