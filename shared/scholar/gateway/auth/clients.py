"""Who the client is: a registered (DCR) client from the AuthTable, or a client metadata document by URL.

Redirect URIs are compared exactly (string equality, no normalisation, no prefix or port wildcard): a
mismatch is answered without redirecting (RFC 6749 §4.1.2.1), so the endpoint is never an open redirect.
At the token and revocation endpoints a confidential client proves itself with its secret (HTTP Basic or
form), checked against the stored hash in constant time.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from scholar.gateway.auth.cimd import fetch_client_document, is_metadata_url
from scholar.gateway.auth.errors import INVALID_CLIENT, INVALID_REQUEST, OAuthError
from scholar.store.auth import AuthStore, token_hash

MAX_CLIENT_ID = 2000


@dataclass(frozen=True)
class Client:
    """What the authorization server needs to know about a client, however it is known."""

    client_id: str
    name: str
    redirect_uris: tuple[str, ...]
    auth_method: str = "none"
    secret_hash: str | None = None
    grant_types: tuple[str, ...] = ("authorization_code", "refresh_token")
    kind: str = "registered"  # or "metadata document"

    def redirect_for(self, redirect_uri: str | None) -> str:
        """The redirect URI to use: the one given, if registered exactly; the only one, if none was given.

        Raises:
            OAuthError: invalid_request (not registered, or missing while several are).
        """
        if redirect_uri is None:
            if len(self.redirect_uris) == 1:
                return self.redirect_uris[0]
            raise OAuthError(INVALID_REQUEST, "redirect_uri is required: the client has several")
        if redirect_uri not in self.redirect_uris:
            raise OAuthError(INVALID_REQUEST, "the redirect_uri is not registered for this client")
        return redirect_uri


async def find_client(client_id: str, store: AuthStore) -> Client:
    """The client named ``client_id``.

    Raises:
        OAuthError: invalid_client (unknown, or a metadata document that cannot be used).
    """
    if not client_id or len(client_id) > MAX_CLIENT_ID:
        raise OAuthError(INVALID_CLIENT, "client_id is missing or too long")
    if is_metadata_url(client_id):
        document = await fetch_client_document(client_id, store)
        host = urlsplit(client_id).hostname or client_id
        grants = tuple(document.grant_types) + (("refresh_token",) if "refresh_token" not in document.grant_types
                                                 else ())
        return Client(client_id=client_id, name=document.client_name or host,
                      redirect_uris=tuple(document.redirect_uris), grant_types=grants, kind="metadata document")
    record = await store.get_client(client_id)
    if record is None:
        raise OAuthError(INVALID_CLIENT, "unknown client_id (register it first, or use a client metadata URL)")
    return Client(client_id=record.client_id, name=record.client_name or record.client_id,
                  redirect_uris=tuple(record.redirect_uris), auth_method=record.token_endpoint_auth_method,
                  secret_hash=record.secret_hash, grant_types=tuple(record.grant_types))


def basic_credentials(header: str | None) -> tuple[str, str] | None:
    """``(user, password)`` of an ``Authorization: Basic`` header, or None when it is not Basic.

    Raises:
        OAuthError: invalid_client (status 401): not base64, not UTF-8, or no ``:``.
    """
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise OAuthError(INVALID_CLIENT, "malformed Basic credentials", status=401) from exc
    user, sep, password = decoded.partition(":")
    if not sep:
        raise OAuthError(INVALID_CLIENT, "malformed Basic credentials", status=401)
    return unquote(user), unquote(password)  # RFC 6749 §2.3.1: form-encoded before Basic


async def authenticate_client(form: dict[str, str], authorization: str | None, store: AuthStore) -> Client:
    """The client making a token or revocation request, after checking its credentials.

    Raises:
        OAuthError: invalid_client (status 401): unknown client, missing or wrong secret, two methods at once.
    """
    basic = basic_credentials(authorization)
    if basic and "client_secret" in form:
        raise OAuthError(INVALID_CLIENT, "use one client authentication method", status=401)
    client_id, secret = basic if basic else (form.get("client_id", ""), form.get("client_secret"))
    if basic and form.get("client_id") not in (None, client_id):
        raise OAuthError(INVALID_CLIENT, "client_id differs from the authenticated client", status=401)
    try:
        client = await find_client(client_id, store)
    except OAuthError as exc:
        raise OAuthError(INVALID_CLIENT, exc.description, status=401) from exc
    if client.auth_method == "none":
        return client
    if secret is None or client.secret_hash is None or not hmac.compare_digest(token_hash(secret),
                                                                             client.secret_hash):
        raise OAuthError(INVALID_CLIENT, "client authentication failed", status=401)
    return client
