"""Client ID Metadata Documents: a ``client_id`` that is an https URL names a JSON document describing the client.

The document is fetched through the same SSRF guard as a caller's PDF URL (``scholar.web.ssrf`` via
``scholar.web.download.send_vetted``: http(s) only, every resolved address vetted, the connection made to
the vetted address): no redirects, at most ``MAX_BYTES`` and ``TIMEOUT_S``. It must name itself
(``client_id`` equal to the URL, byte for byte), list its ``redirect_uris`` (each following the rule DCR
follows, ``scholar.gateway.auth.redirects``; one that breaks it refuses the whole document), and be a public
client (it cannot hold a secret). It is cached in the AuthTable for as long as its HTTP caching headers allow
(``no-store``: not at all), within ``[0, MAX_CACHE_S]``; a failed fetch is never cached.
"""

from __future__ import annotations

import email.utils
import json
import re
import ssl
import time
from typing import Any

import httpx
from pydantic import BaseModel, Field, ValidationError

from scholar.core.config import get_settings
from scholar.core.errors import ScholarError
from scholar.core.numerals import ascii_int
from scholar.gateway.auth.errors import INVALID_CLIENT, OAuthError
from scholar.gateway.auth.redirects import check_redirect_uri
from scholar.store.auth import AuthStore, CachedDocument
from scholar.web.download import guarded_client, send_vetted
from scholar.web.fetch import web_access

MAX_BYTES = 5 * 1024  # the CIMD draft's suggested cap
TIMEOUT_S = 5.0
DEFAULT_CACHE_S = 300
MAX_CACHE_S = 86_400
_MAX_AGE = re.compile(r"(?:^|,)\s*(?:s-maxage|max-age)\s*=\s*(\d+)", re.IGNORECASE)


class ClientDocument(BaseModel):
    """The fields of a client metadata document we use (others are ignored)."""

    client_id: str
    client_name: str | None = Field(default=None, max_length=200)
    client_uri: str | None = Field(default=None, max_length=2000)
    logo_uri: str | None = Field(default=None, max_length=2000)
    redirect_uris: list[str] = Field(min_length=1, max_length=20)
    grant_types: list[str] = Field(default_factory=lambda: ["authorization_code"], max_length=10)
    response_types: list[str] = Field(default_factory=lambda: ["code"], max_length=10)
    token_endpoint_auth_method: str = "none"
    scope: str | None = Field(default=None, max_length=1000)


def is_metadata_url(client_id: str) -> bool:
    """Whether a client_id is meant as a client metadata document URL (an https URL)."""
    return client_id.startswith("https://")


def check_url(client_id: str) -> None:
    """The CIMD draft's URL rules: https, a path, no fragment, no credentials, no dot segments.

    Raises:
        OAuthError: invalid_client.
    """
    try:
        url = httpx.URL(client_id)
    except httpx.InvalidURL as exc:
        raise OAuthError(INVALID_CLIENT, "the client_id is not a valid URL") from exc
    segments = url.raw_path.decode("ascii", "replace").split("?", 1)[0].split("/")
    if (url.scheme != "https" or not url.host or url.userinfo or url.fragment or url.path in ("", "/")
            or any(part in (".", "..") for part in segments) or len(client_id) > 2000):
        raise OAuthError(INVALID_CLIENT, "a client_id URL must be https with a path, and no fragment, "
                                         "credentials or dot segments")


def cache_seconds(headers: httpx.Headers, now: float) -> int:
    """How long a document may be kept, from its Cache-Control / Expires headers (0: not at all)."""
    control = headers.get("cache-control", "")
    directives = {part.strip().split("=", 1)[0].lower() for part in control.split(",") if part.strip()}
    if directives & {"no-store", "no-cache", "private"}:
        return 0
    match = _MAX_AGE.search(control)
    if match:
        return min(int(match.group(1)), MAX_CACHE_S)
    expires = headers.get("expires")
    if expires:
        try:
            when = email.utils.parsedate_to_datetime(expires).timestamp()
        except (TypeError, ValueError):
            return 0
        return max(0, min(int(when - now), MAX_CACHE_S))
    return DEFAULT_CACHE_S


def _tls() -> ssl.SSLContext | bool:
    """The system's trust, plus the test-only CA when ``SCHOLAR_TEST_CA_FILE`` names one."""
    extra = get_settings().oauth.test_ca_file
    if not extra:
        return True
    import certifi  # noqa: PLC0415  # httpx's own trust store; only with the test-only setting

    context = ssl.create_default_context(cafile=certifi.where())
    context.load_verify_locations(cafile=extra)
    return context


async def _download(url: str) -> tuple[dict[str, Any], int]:
    access = web_access()
    headers = {"User-Agent": get_settings().user_agent, "Accept": "application/json"}
    timeout = httpx.Timeout(TIMEOUT_S, connect=TIMEOUT_S)
    transport = access.transport() if access.transport else None
    try:
        async with guarded_client(timeout=timeout, headers=headers, transport=transport, verify=_tls()) as client:
            _target, response = await send_vetted(client, url, resolver=access.resolver,
                                                  allow_hosts=get_settings().test_allow_hosts)
            try:
                if response.status_code != 200:
                    raise OAuthError(INVALID_CLIENT, f"the client metadata document answered {response.status_code}")
                declared = ascii_int(response.headers.get("content-length", ""))
                if declared is not None and declared > MAX_BYTES:
                    raise OAuthError(INVALID_CLIENT, f"the client metadata document is over {MAX_BYTES} bytes")
                body = b""
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_BYTES:
                        raise OAuthError(INVALID_CLIENT, f"the client metadata document is over {MAX_BYTES} bytes")
                lifetime = cache_seconds(response.headers, time.time())
            finally:
                await response.aclose()
    except ScholarError as exc:  # refused by the SSRF guard (private address, not resolvable, not http(s))
        raise OAuthError(INVALID_CLIENT, f"the client metadata document cannot be fetched: {exc.message}") from exc
    except httpx.HTTPError as exc:
        raise OAuthError(INVALID_CLIENT, f"the client metadata document cannot be fetched ({type(exc).__name__})"
                         ) from exc
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise OAuthError(INVALID_CLIENT, "the client metadata document is not JSON") from exc
    if not isinstance(document, dict):
        raise OAuthError(INVALID_CLIENT, "the client metadata document is not a JSON object")
    return document, lifetime


def parse_document(url: str, document: dict[str, Any]) -> ClientDocument:
    """Check a fetched document against the URL it came from.

    Raises:
        OAuthError: invalid_client (it names another client, has no redirect URIs or one that breaks the
            redirect-URI rule, or claims a secret).
    """
    try:
        parsed = ClientDocument.model_validate(document)
    except ValidationError as exc:
        raise OAuthError(INVALID_CLIENT, f"the client metadata document is invalid: {exc.errors()[0]['msg']}") from exc
    if parsed.client_id != url:
        raise OAuthError(INVALID_CLIENT, "the client metadata document names another client_id")
    if "client_secret" in document or "client_secret_expires_at" in document or parsed.token_endpoint_auth_method \
            != "none":
        raise OAuthError(INVALID_CLIENT, "a client metadata document describes a public client (no secret; "
                                         "token_endpoint_auth_method none)")
    if not set(parsed.response_types) <= {"code"}:
        raise OAuthError(INVALID_CLIENT, "only the code response type is supported")
    for uri in parsed.redirect_uris:
        try:
            check_redirect_uri(uri)
        except OAuthError as exc:  # one bad URI refuses the whole document: it is not the client we would trust
            raise OAuthError(INVALID_CLIENT, f"the client metadata document lists a redirect URI that breaks the "
                                             f"rule: {exc.description}") from exc
    return parsed


async def fetch_client_document(url: str, store: AuthStore) -> ClientDocument:
    """The document at ``url``, from the cache while it is fresh, else fetched (and cached when allowed).

    Raises:
        OAuthError: invalid_client for a bad URL, an unfetchable, oversized or invalid document.
    """
    check_url(url)
    cached = await store.get_document(url)
    if cached is not None:
        return parse_document(url, cached.document)
    document, lifetime = await _download(url)
    parsed = parse_document(url, document)
    if lifetime > 0:
        await store.put_document(CachedDocument(url=url, document=document, expires_at=int(time.time()) + lifetime))
    return parsed
