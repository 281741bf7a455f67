"""Minting access tokens: an RS256 JWS whose signature KMS makes, through PyJWT's own algorithm extension point.

PyJWT signs with an ``Algorithm`` object; ``KmsRS256`` is PyJWT's RSA algorithm whose ``sign`` hands the
signing input to KMS (``scholar.store.signing.sign``) instead of a local private key, which never exists here.
Header and encoding are PyJWT's; verification (``scholar.gateway.bearer.verify``) is PyJWT's RS256 on the public key.
"""

from __future__ import annotations

import json
import secrets
import time
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from jwt import PyJWS
from jwt.algorithms import RSAAlgorithm

from scholar.core.aio import off_loop
from scholar.gateway.bearer.claims import ALGORITHM, TOKEN_TYPE, AccessClaims
from scholar.store.signing import public_key_der, sign

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey


class KmsRS256(RSAAlgorithm):
    """RS256 whose key is a KMS key id: ``sign`` asks KMS (RSASSA_PKCS1_V1_5_SHA_256 is exactly RS256)."""

    def __init__(self) -> None:
        super().__init__(RSAAlgorithm.SHA256)

    def prepare_key(self, key: Any) -> Any:
        return key  # the KMS key id; the private key never leaves KMS

    def check_key_length(self, key: Any) -> str | None:
        return None  # the key spec (RSA_2048) is fixed by the template

    def sign(self, msg: bytes, key: Any) -> bytes:
        return sign(str(key), msg)


@cache
def _jws() -> PyJWS:
    jws = PyJWS(algorithms=[])
    jws.register_algorithm(ALGORITHM, KmsRS256())
    return jws


def _encode(claims: dict[str, Any], key_id: str) -> str:
    kid, _der = public_key_der(key_id)
    payload = json.dumps(claims, separators=(",", ":")).encode()
    return _jws().encode(payload, key_id, algorithm=ALGORITHM, headers={"kid": kid, "typ": TOKEN_TYPE})


async def mint_access_token(*, key_id: str, issuer: str, principal: str, audience: str, client_id: str,
                            scope: str, fid: str, ttl_s: int) -> tuple[str, AccessClaims]:
    """A signed access token and its claims (KMS is called off the event loop).

    Raises:
        UnavailableError: KMS refused or could not be reached.
    """
    now = int(time.time())
    claims = AccessClaims(iss=issuer, sub=principal, aud=audience, client_id=client_id, scope=scope, fid=fid,
                          jti=secrets.token_urlsafe(16), iat=now, exp=now + ttl_s)
    token = await off_loop(_encode, claims.model_dump(), key_id)
    return token, claims


def public_jwks(key_id: str) -> dict[str, Any]:
    """The JWK Set of the signing key's public half (for anyone who wants to verify our tokens)."""
    from cryptography.hazmat.primitives.serialization import load_der_public_key  # noqa: PLC0415  # with the key

    kid, der = public_key_der(key_id)
    # The DER says which kind of key it holds only at run time; the signing key is RSA (ALGORITHM, template.yaml).
    jwk = RSAAlgorithm.to_jwk(cast("RSAPublicKey", load_der_public_key(der)), as_dict=True)
    return {"keys": [{**jwk, "kid": kid, "use": "sig", "alg": ALGORITHM}]}
