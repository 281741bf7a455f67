"""Download one PDF safely: SSRF-vetted hops, streamed to a temporary file, checked to be a real PDF.

The body is streamed in chunks into a temporary file while it is hashed, so memory stays flat
whatever the size; the size cap is enforced on the bytes received (after content decoding), not
on the Content-Length the server claims. A body that is not a PDF — typically an HTML landing or
block page answered with status 200 — is refused with a typed error that says why, so the caller
can record the reason and try its next candidate.

Each hop connects to the address ``scholar.web.ssrf`` vetted (Host header and TLS SNI keep the
original name, so certificates are still checked against it); redirects are followed by hand and
vetted again, at most ``MAX_REDIRECTS`` times. Environment proxies are ignored on purpose
(``trust_env=False``): a proxy would resolve the name again, out of our sight.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import ssl
import tempfile
from collections.abc import Collection
from pathlib import Path

import httpx
from pydantic import BaseModel, Field

from scholar.core.config import get_settings
from scholar.core.errors import (
    NotFoundError,
    RateLimitedError,
    ScholarError,
    TooLargeError,
    UnavailableError,
    UpstreamError,
    UpstreamTimeoutError,
)
from scholar.core.numerals import ascii_int
from scholar.sources.http import tls_context
from scholar.store.boundary import DISK_FULL
from scholar.web.ssrf import Resolver, VettedTarget, vet_url

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
DEFAULT_TIMEOUT_S = 60.0
MAX_REDIRECTS = 5
PDF_MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024  # PDF readers accept the header anywhere in the first 1024 bytes
_CHUNK = 64 * 1024
_REDIRECTS = frozenset({301, 302, 303, 307, 308})

# Reasons a candidate URL is rejected (``ScholarError.reason``).
NOT_PDF = "not_pdf"
HTML_PAGE = "html_page"
TOO_LARGE = "too_large"
HTTP_ERROR = "http_error"
TOO_MANY_REDIRECTS = "too_many_redirects"
BAD_REDIRECT = "bad_redirect"
TIMEOUT = "timeout"
CONNECT_FAILED = "connect_failed"
TRUNCATED = "truncated"


class DownloadedPdf(BaseModel):
    """A PDF on local disk; the caller owns ``path`` (upload it, then delete it)."""

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: int = Field(ge=0)
    path: Path
    content_type: str | None = None
    final_url: str
    redirects: list[str] = Field(default_factory=list, description="each Location followed, in order")


def is_pdf(first_bytes: bytes) -> bool:
    """Whether a body starts like a PDF: ``%PDF-`` within the first 1024 bytes, with no markup before it."""
    head = first_bytes[:MAGIC_WINDOW]
    at = head.find(PDF_MAGIC)
    return at >= 0 and b"<" not in head[:at]


def _looks_like_html(head: bytes, content_type: str | None) -> bool:
    if content_type and ("html" in content_type.lower() or "xml" in content_type.lower()):
        return True
    start = head[:512].lstrip().lower()
    return start.startswith((b"<!doctype", b"<html", b"<head", b"<?xml", b"<meta", b"<script"))


def _unwritable(exc: OSError, path: Path) -> UnavailableError:
    full = exc.errno == errno.ENOSPC
    why = "the disk is full" if full else (exc.strerror or type(exc).__name__)
    return UnavailableError(f"the PDF could not be written to {path}: {why}", retryable=True,
                            reason=DISK_FULL if full else "file_write_failed",
                            hint=f"Free space on the disk holding {path.parent}, then retry.")


async def download_pdf(
    url: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    allow_private: bool = False,
    allow_hosts: Collection[str] = frozenset(),
    resolver: Resolver | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    dest_dir: str | os.PathLike[str] | None = None,
    user_agent: str | None = None,
) -> DownloadedPdf:
    """Fetch ``url`` and keep it only if it is a real PDF within the size cap.

    Args:
        url: an http(s) URL (a caller's, or a candidate from an open-access source).
        max_bytes: size cap; larger bodies are refused (default 50 MB).
        timeout_s: budget for the whole download, redirects included.
        allow_private: skip the address check (only for URLs we built from our own settings).
        allow_hosts: ``host[:port]`` entries exempt from the address check (test-only setting).
        resolver: ``async (host, port) -> [ip, ...]`` (tests inject one; default: the system's).
        transport: an httpx transport (tests); default: a real connection to the vetted address.
        dest_dir: where the temporary file goes (default: the system temp dir, /tmp on Lambda).
        user_agent: the User-Agent header (default: this deployment's, ``Settings.user_agent``).

    Returns:
        The file's path, SHA-256, size, content type, final URL and the redirects followed.

    Raises:
        InvalidArgumentError: not an http(s) URL.
        ForbiddenError: a hop resolves to a refused address (reason ``blocked_address``).
        UpstreamError: not a PDF (``not_pdf``, ``html_page``), fewer bytes than announced (``truncated``),
            an HTTP error (``http_error``),
            redirects (``too_many_redirects``, ``bad_redirect``), a failed connection.
        NotFoundError: 404 or 410.
        RateLimitedError: 429.
        TooLargeError: over ``max_bytes`` (reason ``too_large``).
        UpstreamTimeoutError: over ``timeout_s``.
    """
    timeout = httpx.Timeout(timeout_s, connect=min(10.0, timeout_s))
    headers = {"User-Agent": user_agent or get_settings().user_agent, "Accept": "application/pdf,*/*;q=0.8"}
    try:
        async with asyncio.timeout(timeout_s):
            async with guarded_client(timeout=timeout, headers=headers, transport=transport) as client:
                return await _follow(
                    client,
                    url,
                    max_bytes=max_bytes,
                    allow_private=allow_private,
                    allow_hosts=allow_hosts,
                    resolver=resolver,
                    dest_dir=dest_dir,
                )
    except TimeoutError as exc:
        raise UpstreamTimeoutError(
            f"the download did not finish within {timeout_s:g} s", reason=TIMEOUT, retryable=True
        ) from exc
    except httpx.TimeoutException as exc:
        raise UpstreamTimeoutError(f"the server did not answer in time ({type(exc).__name__})", reason=TIMEOUT) from exc
    except httpx.TransportError as exc:
        raise UpstreamError(f"the connection failed ({type(exc).__name__})", reason=CONNECT_FAILED) from exc


def guarded_client(*, timeout: httpx.Timeout, headers: dict[str, str],
                   transport: httpx.AsyncBaseTransport | None = None,
                   verify: ssl.SSLContext | bool = True) -> httpx.AsyncClient:
    """The client for SSRF-guarded fetches (PDFs, client metadata documents): no redirects, no proxies, no reuse.

    Args:
        verify: TLS verification (an ``ssl.SSLContext`` to trust a test CA besides the system's); True is certifi's
            bundle, the context built once per process (``tls_context``).
    """
    return httpx.AsyncClient(
        transport=transport,
        timeout=timeout,
        headers=headers,
        follow_redirects=False,
        trust_env=False,
        verify=tls_context(trust_env=False) if verify is True else verify,
        # No reuse: a pooled connection is keyed by address only and would carry another host's SNI.
        limits=httpx.Limits(max_connections=1, max_keepalive_connections=0),
    )


async def send_vetted(
    client: httpx.AsyncClient,
    url: str | httpx.URL,
    *,
    resolver: Resolver | None,
    allow_hosts: Collection[str],
    allow_private: bool = False,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
) -> tuple[VettedTarget, httpx.Response]:
    """One hop of a guarded fetch: vet ``url``, then GET the vetted address (Host and SNI keep the name).

    The response is streamed: the caller reads it within its own caps and closes it. ``method``, ``headers`` and
    ``form`` (a urlencoded body) serve a library proxy's sign-in and session cookie (scholar.web.proxy_fetch).

    Raises:
        InvalidArgumentError: not an http(s) URL.
        ForbiddenError: the host resolves to a refused address, or does not resolve.
        httpx.TransportError: the connection failed (the caller translates it).
    """
    target = await vet_url(url, resolver=resolver, allow_hosts=allow_hosts, allow_private=allow_private)
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    request = client.build_request(method, target.pinned_url(), headers={**(headers or {}), "Host": target.host_header},
                                   data=form, extensions=extensions)
    return target, await client.send(request, stream=True)


async def _follow(
    client: httpx.AsyncClient,
    url: str,
    *,
    max_bytes: int,
    allow_private: bool,
    allow_hosts: Collection[str],
    resolver: Resolver | None,
    dest_dir: str | os.PathLike[str] | None,
) -> DownloadedPdf:
    current: str | httpx.URL = url
    redirects: list[str] = []
    for _hop in range(MAX_REDIRECTS + 1):
        target, response = await send_vetted(client, current, resolver=resolver, allow_hosts=allow_hosts,
                                             allow_private=allow_private)
        try:
            if response.status_code in _REDIRECTS:
                location = response.headers.get("Location")
                if not location:
                    raise UpstreamError(
                        f"{target.host} answered {response.status_code} without a Location",
                        status=response.status_code,
                        reason=BAD_REDIRECT,
                        retryable=False,
                    )
                current = target.url.join(location)
                redirects.append(str(current))
                continue
            _raise_for_status(response, target)
            return await _save(response, target, max_bytes=max_bytes, dest_dir=dest_dir, redirects=redirects)
        finally:
            await response.aclose()
    raise UpstreamError(
        f"more than {MAX_REDIRECTS} redirects",
        reason=TOO_MANY_REDIRECTS,
        retryable=False,
        details={"redirects": redirects},
    )


def _raise_for_status(response: httpx.Response, target: VettedTarget) -> None:
    status = response.status_code
    if 200 <= status < 300:
        return
    where = f"{target.host}{target.url.path}"
    details = {"host": target.host}
    if status in (404, 410):
        raise NotFoundError(f"{where} answered {status}", status=status, reason=HTTP_ERROR, details=details)
    if status == 429:
        retry_after = response.headers.get("Retry-After", "")
        raise RateLimitedError(
            f"{target.host} is throttling downloads (429)",
            status=status,
            reason=HTTP_ERROR,
            retry_after_s=None if (seconds := ascii_int(retry_after)) is None else float(seconds),
            details=details,
        )
    raise UpstreamError(
        f"{where} answered {status}", status=status, reason=HTTP_ERROR, retryable=status >= 500, details=details
    )


async def _save(
    response: httpx.Response,
    target: VettedTarget,
    *,
    max_bytes: int,
    dest_dir: str | os.PathLike[str] | None,
    redirects: list[str],
) -> DownloadedPdf:
    content_type = response.headers.get("Content-Type")
    declared = ascii_int(response.headers.get("Content-Length", ""))
    if declared is not None and declared > max_bytes:
        raise _too_large(declared, max_bytes)
    hasher = hashlib.sha256()
    size = 0
    head = b""
    checked = False
    # Opened before the try so the except can unlink it; the file outlives the block (delete=False).
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115  # closed by the `with handle` below, inside the try
        prefix="scholar-pdf-", suffix=".pdf", dir=dest_dir, delete=False)
    path = Path(handle.name)
    try:
        with handle:
            async for chunk in response.aiter_bytes(_CHUNK):
                size += len(chunk)
                if size > max_bytes:
                    raise _too_large(size, max_bytes)
                if not checked:
                    head += chunk[: MAGIC_WINDOW - len(head)]
                    if len(head) >= MAGIC_WINDOW or is_pdf(head):
                        _check_magic(head, content_type, target)
                        checked = True
                hasher.update(chunk)
                handle.write(chunk)
        if not checked:
            _check_magic(head, content_type, target)
        # A cut connection can end the stream early without an error: keep only what the server announced.
        # Content-Length counts the bytes on the wire, which are the decoded bytes unless a coding was applied.
        identity = response.headers.get("Content-Encoding", "identity").strip().lower() in ("", "identity")
        received = size if identity else response.num_bytes_downloaded
        if declared is not None and received != declared:
            raise UpstreamError(
                f"{target.host} sent {received} of the {declared} bytes it announced",
                reason=TRUNCATED,
                details={"host": target.host},
            )
    except OSError as exc:  # the file could not be written (a full disk, a folder gone): typed, naming it
        path.unlink(missing_ok=True)
        raise _unwritable(exc, path) from exc
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return DownloadedPdf(
        sha256=hasher.hexdigest(),
        size=size,
        path=path,
        content_type=content_type,
        final_url=str(target.url),
        redirects=redirects,
    )


def _check_magic(head: bytes, content_type: str | None, target: VettedTarget) -> None:
    if is_pdf(head):
        return
    details = {"host": target.host, "content_type": content_type or ""}
    if _looks_like_html(head, content_type):
        raise UpstreamError(
            f"{target.host} answered with an HTML page (a landing, login or block page), not a PDF",
            reason=HTML_PAGE,
            retryable=False,
            details=details,
        )
    raise UpstreamError(
        f"{target.host} answered with something that is not a PDF (no %PDF- header)",
        reason=NOT_PDF,
        retryable=False,
        details=details,
    )


def _too_large(size: int, max_bytes: int) -> ScholarError:
    return TooLargeError(
        f"the PDF is larger than the {max_bytes // (1024 * 1024) or max_bytes} "
        f"{'MB' if max_bytes >= 1024 * 1024 else 'bytes'} cap (at least {size} bytes)",
        reason=TOO_LARGE,
        details={"max_bytes": max_bytes},
    )
