"""The local backend's KMS: the OAuth signing key as a PEM file readable only by its user (0600).

The authorization server signs access tokens with ``sign`` and the gateway reads ``get_public_key``, the two KMS
calls ``scholar.store.signing`` makes; the RSA 2048 key is made on first use, written with mode 0600 from the
start (never widened, then narrowed), and refused if someone else can read it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from scholar.core.errors import UnavailableError
from scholar.store.local.database import sqlite_errors

KEY_FILE = "oauth-signing-key.pem"


class LocalKMS:
    """``sign`` and ``get_public_key`` with an RSA key kept in ``folder/oauth-signing-key.pem``."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / KEY_FILE
        self._key: Any = None

    def _private_key(self) -> Any:
        from cryptography.hazmat.primitives import serialization  # noqa: PLC0415  # OAuth mode only
        from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: PLC0415  # OAuth mode only

        if self._key is not None:
            return self._key
        with sqlite_errors(self.path):
            if not self.path.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
                pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption())
                handle = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(handle, "wb") as out:
                    out.write(pem)
            if stat.S_IMODE(self.path.stat().st_mode) & 0o077:
                raise UnavailableError(f"the signing key {self.path} is readable by other users", retryable=False,
                                       reason="signing_key_exposed",
                                       hint=f"Run chmod 600 {self.path} (or delete it to make a new key).")
            self._key = serialization.load_pem_private_key(self.path.read_bytes(), password=None)
        return self._key

    def sign(self, *, KeyId: str, Message: bytes, **_: Any) -> dict[str, Any]:
        from cryptography.hazmat.primitives import hashes  # noqa: PLC0415  # OAuth mode only
        from cryptography.hazmat.primitives.asymmetric import padding  # noqa: PLC0415  # OAuth mode only

        return {"Signature": self._private_key().sign(Message, padding.PKCS1v15(), hashes.SHA256())}

    def get_public_key(self, *, KeyId: str, **_: Any) -> dict[str, Any]:
        from cryptography.hazmat.primitives import serialization  # noqa: PLC0415  # OAuth mode only

        der = self._private_key().public_key().public_bytes(serialization.Encoding.DER,
                                                            serialization.PublicFormat.SubjectPublicKeyInfo)
        return {"KeyId": KeyId, "PublicKey": der}
