"""The one redirect-URI rule, for registered clients (DCR) and client metadata documents alike.

A redirect URI is https with a host, http on a loopback address (native apps, RFC 8252 §7.3), or a private-use
scheme (RFC 8252 §7.1: ``cursor://…``); never a fragment, never a scheme a browser runs or reads locally
(``javascript:``, ``data:``, ``file:`` …). It is plain ASCII: a code is sent to it in a ``Location`` header, which
carries Latin-1 at most, so an IRI (``https://例え.example/cb``, ``…/cb/€``) is refused here, where the client can
still write it as a URI (punycode host, percent-encoded path), instead of failing every authorization later.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from scholar.gateway.auth.errors import INVALID_REDIRECT_URI, OAuthError

__all__ = ["LOOPBACK_HOSTS", "MAX_LENGTH", "REFUSED_SCHEMES", "check_redirect_uri"]

MAX_LENGTH = 2000
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
REFUSED_SCHEMES = frozenset({"javascript", "data", "file", "vbscript", "about", "blob", "ftp", "ws", "wss", "mailto",
                             "view-source", "jar", "filesystem"})


def check_redirect_uri(uri: str) -> str:
    """A redirect URI a code may be sent to, unchanged.

    Raises:
        OAuthError: invalid_redirect_uri, naming the rule broken.
    """
    if not uri.isascii():
        raise OAuthError(INVALID_REDIRECT_URI, "a redirect URI must be ASCII: write the host in punycode (xn--) "
                                               "and percent-encode the path")
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if not scheme or parts.fragment or "#" in uri or len(uri) > MAX_LENGTH or any(ord(c) < 0x21 for c in uri):
        raise OAuthError(INVALID_REDIRECT_URI, f"not an absolute redirect URI without a fragment: {uri[:100]!r}")
    if scheme == "https":
        if not parts.hostname:
            raise OAuthError(INVALID_REDIRECT_URI, "an https redirect URI needs a host")
    elif scheme == "http":
        if (parts.hostname or "").lower() not in LOOPBACK_HOSTS:
            raise OAuthError(INVALID_REDIRECT_URI, "plain http redirect URIs must be on a loopback address")
    elif scheme in REFUSED_SCHEMES:
        raise OAuthError(INVALID_REDIRECT_URI, f"the {scheme}: scheme is not a redirect target")
    return uri
