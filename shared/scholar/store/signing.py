"""The access-token signing key in AWS KMS: sign with it (authorization server), read its public half (gateway).

The private key never leaves KMS (an RSA_2048 SIGN_VERIFY key; ``RSASSA_PKCS1_V1_5_SHA_256`` is JWS ``RS256``,
and KMS returns exactly the signature bytes a JWS carries). The public key is read once per execution
environment and cached for its life: verifying a token is then local work, with no call per request.
"""

from __future__ import annotations

from functools import cache

from scholar.store import aws
from scholar.store.boundary import boto_errors

SIGNING_ALGORITHM = "RSASSA_PKCS1_V1_5_SHA_256"


def sign(key_id: str, message: bytes) -> bytes:
    """The RS256 signature of ``message`` made by the KMS key ``key_id``.

    Raises:
        UnavailableError: KMS refused or could not be reached (translated once, in ``boto_errors``).
    """
    with boto_errors("signing a token"):
        answer = aws.client("kms").sign(KeyId=key_id, Message=message, MessageType="RAW",
                                        SigningAlgorithm=SIGNING_ALGORITHM)
    return bytes(answer["Signature"])


@cache
def public_key_der(key_id: str) -> tuple[str, bytes]:
    """``(kid, DER SubjectPublicKeyInfo)`` of the KMS key; the kid is the key's own id (read once per environment).

    Raises:
        UnavailableError: KMS refused or could not be reached.
    """
    with boto_errors("reading the token signing key"):
        answer = aws.client("kms").get_public_key(KeyId=key_id)
    return str(answer["KeyId"]).rsplit("/", 1)[-1], bytes(answer["PublicKey"])
