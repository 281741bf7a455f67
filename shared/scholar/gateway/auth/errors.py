"""OAuth's own error answers (RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8707 §2): a protocol, not a tool.

Tool failures use the envelope of ``scholar.core.errors``; the OAuth endpoints answer what OAuth clients parse:
``{"error": code, "error_description": text}`` with the RFC's status, or, once the client and its redirect URI
are known to be genuine, a redirect carrying ``error``, ``state`` and ``iss``.
"""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type",
    "invalid_scope", "invalid_target", "access_denied", "unsupported_response_type", "server_error",
    "temporarily_unavailable", "invalid_client_metadata", "invalid_redirect_uri", "invalid_token",
]

INVALID_REQUEST: ErrorCode = "invalid_request"
INVALID_CLIENT: ErrorCode = "invalid_client"
INVALID_GRANT: ErrorCode = "invalid_grant"
UNAUTHORIZED_CLIENT: ErrorCode = "unauthorized_client"
UNSUPPORTED_GRANT_TYPE: ErrorCode = "unsupported_grant_type"
INVALID_SCOPE: ErrorCode = "invalid_scope"
INVALID_TARGET: ErrorCode = "invalid_target"
ACCESS_DENIED: ErrorCode = "access_denied"
UNSUPPORTED_RESPONSE_TYPE: ErrorCode = "unsupported_response_type"
SERVER_ERROR: ErrorCode = "server_error"
TEMPORARILY_UNAVAILABLE: ErrorCode = "temporarily_unavailable"
INVALID_CLIENT_METADATA: ErrorCode = "invalid_client_metadata"
INVALID_REDIRECT_URI: ErrorCode = "invalid_redirect_uri"


class OAuthError(Exception):
    """An OAuth error answer: ``error`` (the RFC's code), a description, and the HTTP status to send it with."""

    def __init__(self, error: ErrorCode, description: str, *, status: int = 400) -> None:
        super().__init__(f"{error}: {description}")
        self.error = error
        self.description = description
        self.status = status

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}
