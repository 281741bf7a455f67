"""Verify an access token offline: signature by our KMS key's public half, claims, audience, issuer, lifetime.

A token must state when it was issued (``iat``), and its lifetime (``exp - iat``) may not pass what we issue
(``SCHOLAR_OAUTH_ACCESS_TTL_S``) plus ``LEEWAY_S``: a token signed by our key but made to last ten years (a key
misused once, a minting bug) is refused, not honoured for a decade.

The algorithm is pinned (RS256) and the key is an RSA public key object, so ``alg: none``, HS256 with the public
key as an HMAC secret (key confusion) and every other algorithm are refused by PyJWT before any claim is read;
the header must also name our key (``kid``) and the token type (``at+jwt``). The public key is fetched from KMS
once per environment (``scholar.store.signing.public_key_der``): no network call per request.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import ValidationError

from scholar.core.config import get_settings
from scholar.gateway.bearer.claims import ALGORITHM, TOKEN_TYPE, AccessClaims
from scholar.store.signing import public_key_der

LEEWAY_S = 30
REQUIRED = ["exp", "iat", "iss", "aud", "sub", "jti"]


class TokenRefused(Exception):
    """The token is not one of ours for this resource, or no longer valid; ``reason`` says which check failed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@cache
def load_key(key_id: str) -> tuple[str, Any]:
    """``(kid, RSA public key)`` of the signing key, read from KMS on first use (then from memory).

    Raises:
        UnavailableError: the key could not be read.
    """
    from cryptography.hazmat.primitives.serialization import load_der_public_key  # noqa: PLC0415  # OAuth mode only

    kid, der = public_key_der(key_id)
    return kid, load_der_public_key(der)


def key_loaded(key_id: str) -> bool:
    """Whether ``verify_access_token`` can run without a network call (the public key is in memory)."""
    return any(args == (key_id,) for args in _loaded)


_loaded: set[tuple[str]] = set()


def verify_access_token(token: str, *, key_id: str, issuer: str, audience: str) -> AccessClaims:
    """The token's claims, once every check passed.

    Args:
        token: the compact JWS from ``Authorization: Bearer``.
        key_id: the KMS signing key.
        issuer: the expected ``iss`` (our authorization server).
        audience: the expected ``aud`` (this MCP URL, RFC 8707).

    Raises:
        TokenRefused: malformed, wrong algorithm, type or key, bad signature, expired, another issuer or audience,
            or a lifetime longer than we issue.
        UnavailableError: the public key could not be read (first use in this environment only).
    """
    import jwt  # noqa: PLC0415  # deliberately lazy: only OAuth deployments read tokens

    kid, key = load_key(key_id)
    _loaded.add((key_id,))
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as exc:
        raise TokenRefused("malformed") from exc
    if header.get("alg") != ALGORITHM:
        raise TokenRefused("algorithm")
    if header.get("typ") != TOKEN_TYPE:
        raise TokenRefused("type")
    if header.get("kid") != kid:
        raise TokenRefused("key")
    try:
        claims = jwt.decode(token, key, algorithms=[ALGORITHM], audience=audience, issuer=issuer,
                            leeway=LEEWAY_S, options={"require": REQUIRED, "strict_aud": True})
    except jwt.ExpiredSignatureError as exc:
        raise TokenRefused("expired") from exc
    except (jwt.InvalidAudienceError, jwt.MissingRequiredClaimError) as exc:
        raise TokenRefused("audience" if isinstance(exc, jwt.InvalidAudienceError) else "claims") from exc
    except jwt.InvalidIssuerError as exc:
        raise TokenRefused("issuer") from exc
    except jwt.PyJWTError as exc:
        raise TokenRefused("signature") from exc
    try:
        parsed = AccessClaims.model_validate(claims)
    except ValidationError as exc:
        raise TokenRefused("claims") from exc
    if parsed.exp - parsed.iat > get_settings().oauth.access_ttl_s + LEEWAY_S:
        raise TokenRefused("lifetime")
    return parsed
