"""A publisher's PDF through a caller's library proxy (EZproxy-style), with the caller's session.

One fetch walks these hops, each vetted by the SSRF guard (the proxy is a URL a caller set) and each only on the
proxy's own domain (``LibraryProxy.domain``: its session cookie is sent nowhere else; a hop leaving it is refused):

    1. GET the publisher URL written through the proxy, with the session cookie;
    2. sent to the proxy's sign-in (a redirect to ``/login``, or its form answered at once): with a name and
       password, POST the form once (EZproxy's ``user``, ``pass``, ``url``) and follow where it sends us; without
       them, the session has expired: ``ForbiddenError`` (``proxy_session_expired``);
    3. a PDF: done; an HTML page (the publisher's landing): follow its ``citation_pdf_url`` meta tag once, through
       the proxy; a page without one: ``NotFoundError`` (``proxy_no_pdf``).

The body is read into memory within the byte cap (the caller's licensed copy is stored from bytes). What a fetch
counted (``requests``) is the figure ``make bench`` reports. The session cookie is never logged nor put in an error.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import CookieError, SimpleCookie

import httpx
from pydantic import SecretStr

from scholar.core.errors import (
    ForbiddenError,
    NotFoundError,
    RateLimitedError,
    ScholarError,
    TooLargeError,
    UpstreamError,
    UpstreamTimeoutError,
)
from scholar.core.library_proxy import LibraryProxy
from scholar.web.download import guarded_client, is_pdf, send_vetted
from scholar.web.ssrf import Resolver

__all__ = [
    "LEFT_PROXY",
    "PROXY_NOT_LICENSED",
    "PROXY_NO_PDF",
    "PROXY_SESSION_EXPIRED",
    "ProxiedPdf",
    "ProxySignIn",
    "fetch_via_proxy",
]

PROXY_SESSION_EXPIRED = "proxy_session_expired"
PROXY_NO_PDF = "proxy_no_pdf"
PROXY_NOT_LICENSED = "proxy_not_licensed"
LEFT_PROXY = "left_proxy"
SOURCE = "library_proxy"
MAX_HOPS = 10
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class ProxySignIn:
    """The proxy's sign-in name and password (from the keyring, the environment or the caller's connection)."""

    user: str
    password: SecretStr


@dataclass
class ProxiedPdf:
    """A PDF that came through the proxy, the session as it stands after the fetch, and what it took."""

    data: bytes
    sha256: str
    final_url: str
    requests: int
    cookies: dict[str, str] = field(repr=False)
    signed_in: bool = False  # the fetch signed in anew: the caller may keep the new session


class _CitationPdf(HTMLParser):
    """The first ``<meta name="citation_pdf_url" content="…">`` of a page (Google Scholar's inclusion tag)."""

    def __init__(self) -> None:
        super().__init__()
        self.url: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if self.url is None and tag == "meta" and (named.get("name") or "").lower() == "citation_pdf_url":
            self.url = (named.get("content") or "").strip() or None


def citation_pdf_url(html: str) -> str | None:
    """The page's ``citation_pdf_url``, or None."""
    parser = _CitationPdf()
    parser.feed(html)
    return parser.url


@dataclass
class _Walk:
    proxy: LibraryProxy
    client: httpx.AsyncClient
    cookies: dict[str, str]
    resolver: Resolver | None
    allow_hosts: Collection[str]
    max_bytes: int
    requests: int = 0

    async def send(
        self, url: str | httpx.URL, *, form: dict[str, str] | None = None
    ) -> tuple[httpx.URL, httpx.Response]:
        host = httpx.URL(str(url)).host
        if not self.proxy.on_proxy(host):
            raise ForbiddenError(
                f"the library proxy sent us to {host}, off its own domain {self.proxy.domain}: "
                "not followed (the session stays on the proxy)",
                source=SOURCE,
                reason=LEFT_PROXY,
            )
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        self.requests += 1
        target, response = await send_vetted(
            self.client,
            url,
            resolver=self.resolver,
            allow_hosts=self.allow_hosts,
            method="POST" if form else "GET",
            headers=headers,
            form=form,
        )
        self._keep_cookies(response)
        return target.url, response

    def _keep_cookies(self, response: httpx.Response) -> None:
        for header in response.headers.get_list("set-cookie"):
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(header)
            except CookieError:
                continue
            for name, morsel in jar.items():
                if not morsel.value or morsel["max-age"] in ("0", "-1"):
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value

    async def body(self, response: httpx.Response) -> bytes:
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes(_CHUNK):
            size += len(chunk)
            if size > self.max_bytes:
                raise TooLargeError(
                    f"the PDF through the library proxy is over the {self.max_bytes} byte cap",
                    source=SOURCE,
                    reason="too_large",
                )
            chunks.append(chunk)
        return b"".join(chunks)


def _expired(proxy: LibraryProxy) -> ForbiddenError:
    return ForbiddenError(
        f"the library proxy ({proxy.domain}) asks to sign in: the session has expired or was never opened",
        source=SOURCE,
        reason=PROXY_SESSION_EXPIRED,
    )


def _refused(status: int, where: str) -> ScholarError:
    if status in (401, 403):
        return ForbiddenError(
            f"{where} answered {status} through the library proxy: the licence does not cover it",
            source=SOURCE,
            status=status,
            reason=PROXY_NOT_LICENSED,
        )
    if status in (404, 410):
        return NotFoundError(
            f"{where} answered {status} through the library proxy", source=SOURCE, status=status, reason=PROXY_NO_PDF
        )
    if status == 429:
        return RateLimitedError(f"{where} is throttling the library proxy (429)", source=SOURCE, status=status)
    return UpstreamError(
        f"{where} answered {status} through the library proxy", source=SOURCE, status=status, retryable=status >= 500
    )


async def fetch_via_proxy(
    proxy: LibraryProxy,
    url: str,
    *,
    cookies: dict[str, str],
    sign_in: ProxySignIn | None = None,
    max_bytes: int,
    timeout_s: float,
    resolver: Resolver | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    allow_hosts: Collection[str] = frozenset(),
    user_agent: str,
) -> ProxiedPdf:
    """The PDF of the publisher ``url`` through ``proxy`` with the caller's session (see the module docstring).

    Raises:
        ForbiddenError: the session expired and no sign-in was given or it failed (``proxy_session_expired``), the
            licence does not cover the paper (``proxy_not_licensed``), a hop left the proxy (``left_proxy``) or
            resolves to a refused address.
        NotFoundError: no PDF at the publisher through the proxy (``proxy_no_pdf``).
        TooLargeError, RateLimitedError, UpstreamError, UpstreamTimeoutError: as the names say.
    """
    headers = {"User-Agent": user_agent, "Accept": "application/pdf,text/html;q=0.9,*/*;q=0.8"}
    async with _reaching_proxy(timeout_s, headers, transport) as client:
        walk = _Walk(proxy, client, dict(cookies), resolver, allow_hosts, max_bytes)
        return await _walk(walk, url, sign_in)


@asynccontextmanager
async def _reaching_proxy(
    timeout_s: float, headers: dict[str, str], transport: httpx.AsyncBaseTransport | None
) -> AsyncIterator[httpx.AsyncClient]:
    """A guarded client for the proxy's hops, the whole walk within ``timeout_s``; a timeout or an unreachable proxy
    becomes the typed error (what the walk itself raises passes through)."""
    timeout = httpx.Timeout(timeout_s, connect=min(10.0, timeout_s))
    try:
        async with (
            asyncio.timeout(timeout_s),
            guarded_client(timeout=timeout, headers=headers, transport=transport) as client,
        ):
            yield client
    except TimeoutError as exc:
        raise UpstreamTimeoutError(
            f"the library proxy did not answer within {timeout_s:g} s", source=SOURCE, retryable=True
        ) from exc
    except httpx.TransportError as exc:
        raise UpstreamError(
            f"the library proxy could not be reached ({type(exc).__name__})", source=SOURCE, reason="connect_failed"
        ) from exc


async def open_session(
    proxy: LibraryProxy,
    sign_in: ProxySignIn,
    *,
    timeout_s: float,
    resolver: Resolver | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    allow_hosts: Collection[str] = frozenset(),
    user_agent: str,
) -> dict[str, str]:
    """Sign in with the proxy's form once (``scholar library proxy login``); the session cookies it set.

    Raises:
        ForbiddenError: the proxy refused the sign-in (its form again, no cookie: ``proxy_session_expired``), or
            resolves to a refused address.
        UpstreamError, UpstreamTimeoutError: the proxy could not be reached.
    """
    form = {"user": sign_in.user, "pass": sign_in.password.get_secret_value(), "url": f"https://{proxy.domain}/"}
    async with _reaching_proxy(timeout_s, {"User-Agent": user_agent}, transport) as client:
        walk = _Walk(proxy, client, {}, resolver, allow_hosts, max_bytes=0)
        _at, response = await walk.send(proxy.login_url, form=form)
        await response.aclose()
    if response.status_code not in _REDIRECTS or not walk.cookies:
        raise ForbiddenError(
            f"the library proxy ({proxy.domain}) refused the sign-in: check the name and password",
            source=SOURCE,
            reason=PROXY_SESSION_EXPIRED,
        )
    return walk.cookies


async def _walk(walk: _Walk, url: str, sign_in: ProxySignIn | None) -> ProxiedPdf:
    proxy = walk.proxy
    start = proxy.proxied(url)
    current: str | httpx.URL = start
    form: dict[str, str] | None = None
    signed_in = followed_meta = False
    for _hop in range(MAX_HOPS):
        at, response = await walk.send(current, form=form)
        form = None
        try:
            login_page = proxy.is_login(str(at)) and response.status_code == 200
            location = response.headers.get("Location") if response.status_code in _REDIRECTS else None
            to_login = location is not None and proxy.is_login(str(at.join(location))) and not proxy.is_login(str(at))
            if login_page or to_login:
                if sign_in is None or signed_in:
                    raise _expired(proxy)
                # EZproxy's form: user, pass and the URL to go on to (its redirect after a good sign-in).
                current, form, signed_in = (
                    proxy.login_url,
                    {"user": sign_in.user, "pass": sign_in.password.get_secret_value(), "url": url},
                    True,
                )
                continue
            if location is not None:
                current = at.join(location)
                continue
            if response.status_code != 200:
                raise _refused(response.status_code, at.host)
            data = await walk.body(response)
        finally:
            await response.aclose()
        if is_pdf(data[:1024]):
            return ProxiedPdf(
                data=data,
                sha256=hashlib.sha256(data).hexdigest(),
                final_url=str(at),
                requests=walk.requests,
                cookies=walk.cookies,
                signed_in=signed_in,
            )
        pdf_link = None if followed_meta else citation_pdf_url(data.decode("utf-8", "replace"))
        if pdf_link is None:
            raise NotFoundError(
                f"the publisher's page through the library proxy ({at.host}) is HTML without a PDF "
                "link (citation_pdf_url)",
                source=SOURCE,
                reason=PROXY_NO_PDF,
            )
        followed_meta = True
        current = proxy.proxied(str(at.join(pdf_link)))
    raise UpstreamError(
        f"more than {MAX_HOPS} hops through the library proxy", source=SOURCE, reason="too_many_redirects"
    )
