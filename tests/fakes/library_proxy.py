"""A fake EZproxy (ASGI), after OCLC's documentation of EZproxy: starting point URLs, the login form, proxy by hostname.

What it does, as EZproxy does it (help.oclc.org, "Proxy by hostname", "Does our Hosted EZproxy prefix start with HTTP
or HTTPS?"): ``https://login.<name>/login?url=<url>`` is the starting point; without a session it answers its login
form (fields ``user``, ``pass``, ``url``); a good sign-in sets the session cookie ``ezproxy`` for the domain ``.<name>``
and redirects to the proxied URL; with a session it redirects at once. A proxied host is the remote host with its dots
turned into dashes, below ``<name>`` (``www-pub-example.<name>``); a request there without a valid session is sent to
``https://login.<name>/login?qurl=<url>``. Remote sites are played by the fake itself: ``doi.org`` redirects a DOI
to its publisher's landing; the publisher's landing is HTML with a ``citation_pdf_url`` meta tag (or, for a paper
named in ``no_pdf``, without one); the PDF is a real one from ../shared/fixtures/pdfs.

Reached through ``transport()`` (an httpx transport for ``scholar.web.fetch.set_web_access``): the SSRF guard still
vets every hop (a fake resolver answers a public documentation address) and the vetted request is handed to this
app, keeping its Host header; no socket opens. ``requests`` counts what the proxy was asked (the bench's figure).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

NAME = "proxy.example.test"
PREFIX = f"https://login.{NAME}/login?url={{url}}"
PUBLISHER = "www.pub.example"
COOKIE = "ezproxy"
LOGIN_FORM = (
    '<!DOCTYPE html><html><head><title>Library sign-in</title></head><body><form method="post" '
    'action="/login"><input name="user"><input type="password" name="pass">'
    '<input type="hidden" name="url" value="{url}"><button>Sign in</button></form></body></html>'
)
LANDING = (
    "<!DOCTYPE html><html><head><title>{title}</title>{meta}</head><body><h1>{title}</h1>"
    "<p>Abstract only. Full text for subscribers.</p></body></html>"
)


def _proxied_host(host: str) -> str:
    return f"{host.replace('-', '--').replace('.', '-')}.{NAME}"


def _remote_host(proxied: str) -> str:
    label = proxied.removesuffix(f".{NAME}")
    return label.replace("--", "\0").replace("-", ".").replace("\0", "-")


def proxied(url: str) -> str:
    """``url`` as this proxy serves it (proxy by hostname, https hyphens)."""
    parts = urlsplit(url)
    return f"https://{_proxied_host(parts.hostname or '')}{parts.path}" + (f"?{parts.query}" if parts.query else "")


@dataclass
class FakeLibraryProxy:
    """The proxy's users, sessions, and the licensed papers (DOI → the PDF bytes) its publisher serves."""

    pdf: bytes
    users: dict[str, str] = field(default_factory=lambda: {"alice": "correct horse"})
    licensed: frozenset[str] = frozenset({"10.5555/licensed.1"})
    no_pdf: frozenset[str] = frozenset({"10.5555/landing.only"})
    offsite: frozenset[str] = frozenset({"10.5555/offsite"})  # the DOI resolves off the proxy (not rewritten)
    looping: frozenset[str] = frozenset({"10.5555/looping"})  # its "PDF" link is one more landing, and so on
    sessions: set[str] = field(default_factory=set)
    requests: list[str] = field(default_factory=list)  # "METHOD host/path" in order
    sign_ins: int = 0

    def session(self) -> str:
        """A new valid session token (as a sign-in in the browser would leave in the cookie jar)."""
        token = secrets.token_hex(16)
        self.sessions.add(token)
        return token

    def expire(self) -> None:
        """Every session ends (EZproxy's inactivity timeout)."""
        self.sessions.clear()

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self._serve, methods=["GET", "POST"])])

    def transport(self) -> httpx.AsyncBaseTransport:
        return httpx.ASGITransport(app=self.app())

    async def _serve(self, request: Request) -> Response:
        host = (request.headers.get("host") or "").split(":")[0]
        self.requests.append(f"{request.method} {host}{request.url.path}")
        valid = request.cookies.get(COOKIE) in self.sessions
        if host == f"login.{NAME}":
            return await self._login(request, valid)
        if not host.endswith(f".{NAME}"):
            return Response("not the proxy", status_code=404)
        remote = _remote_host(host)
        original = f"https://{remote}{request.url.path}"
        if not valid:
            return RedirectResponse(f"https://login.{NAME}/login?qurl={quote(original, safe='')}", status_code=302)
        return self._remote(remote, request.url.path)

    async def _login(self, request: Request, valid: bool) -> Response:
        if request.method == "POST":
            form = await request.form()
            target = str(form.get("url") or "")
            if self.users.get(str(form.get("user"))) != str(form.get("pass")):
                return HTMLResponse(LOGIN_FORM.format(url=target))
            self.sign_ins += 1
            response = RedirectResponse(proxied(target), status_code=302)
            response.set_cookie(COOKIE, self.session(), domain=f".{NAME}", path="/", httponly=True)
            return response
        target = unquote(request.query_params.get("url") or request.query_params.get("qurl") or "")
        if valid and target:
            return RedirectResponse(proxied(target), status_code=302)
        return HTMLResponse(LOGIN_FORM.format(url=target))

    def _remote(self, remote: str, path: str) -> Response:
        if remote == "doi.org":
            doi = path.lstrip("/")
            if doi in self.offsite:
                return RedirectResponse(f"https://{PUBLISHER}/article/{doi}", status_code=302)
            if doi not in self.licensed | self.no_pdf | self.looping:
                return Response("DOI not found", status_code=404)
            return RedirectResponse(proxied(f"https://{PUBLISHER}/article/{doi}"), status_code=302)
        if remote == PUBLISHER and path.startswith("/article/"):
            doi = path.removeprefix("/article/").removesuffix(".pdf")
            if doi.startswith(tuple(self.looping)):
                meta = f'<meta name="citation_pdf_url" content="{proxied(f"https://{PUBLISHER}{path}.pdf")}">'
                return HTMLResponse(LANDING.format(title=doi, meta=meta))
            if path.endswith(".pdf") and doi in self.licensed:
                return Response(self.pdf, media_type="application/pdf")
            if doi in self.licensed:
                # EZproxy rewrites the links of a page it proxies: the meta tag names the proxied PDF.
                meta = f'<meta name="citation_pdf_url" content="{proxied(f"https://{PUBLISHER}{path}.pdf")}">'
                return HTMLResponse(LANDING.format(title=doi, meta=meta))
            if doi in self.no_pdf:
                return HTMLResponse(LANDING.format(title=doi, meta=""))
        return Response("not found", status_code=404)


async def public_resolver(host: str, port: int) -> Sequence[str]:
    """Every name resolves to a public documentation address; the transport never connects to it."""
    return ["93.184.216.34"]
