"""A library proxy (EZproxy-style) as a caller configures it, and how a publisher URL is written through it.

Two kinds, told apart by what is written (``parse_proxy``):

    written                                              kind     the publisher URL https://www.nature.com/x
    https://login.ezproxy.example.edu/login?url={url}    prefix   …/login?url=https%3A%2F%2Fwww.nature.com%2Fx
    https://go.openathens.net/redirector/example.edu?url= prefix   (a template ending url= gets {url} appended)
    ezproxy.example.edu  (or .ezproxy.example.edu)       host     https://www-nature-com.ezproxy.example.edu/x

Host rewriting follows EZproxy's "proxy by hostname" with HTTPS hyphens: an https host has its dots turned into
dashes (a dash it already had is doubled, so the name can be read back) and the proxy's name appended; an http host
keeps its dots. The non-obvious constraint: the proxy's *domain* (``LibraryProxy.domain``) is the only place its
session cookie is ever sent and the only hosts a proxied fetch may visit: for a host proxy its suffix, for a prefix
proxy the template's host without a leading ``login.`` (EZproxy signs in at ``login.<name>`` and serves proxied
hosts below ``<name>``). Pure: no I/O.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, Field

__all__ = ["LibraryProxy", "ProxyKind", "parse_proxy"]

ProxyKind = Literal["prefix", "host"]
URL_SLOT = "{url}"
MAX_PROXY_CHARS = 500
_LOGIN_PATHS = ("/login", "/connect")  # EZproxy's sign-in and its "login?url=" twin


class LibraryProxy(BaseModel):
    """A caller's library proxy: a prefix template with ``{url}``, or the host suffix of proxy-by-hostname."""

    kind: ProxyKind
    template: str = Field(max_length=MAX_PROXY_CHARS, description="prefix: …{url}; host: the suffix (no dot first)")

    @property
    def domain(self) -> str:
        """The proxy's own domain: its cookie goes nowhere else and a proxied fetch visits nothing else."""
        if self.kind == "host":
            return self.template
        host = (urlsplit(self.template).hostname or "").lower()
        return host.removeprefix("login.")

    def on_proxy(self, host: str) -> bool:
        """Whether ``host`` is the proxy's domain or below it."""
        host = host.lower().rstrip(".")
        return host == self.domain or host.endswith("." + self.domain)

    def proxied(self, url: str) -> str:
        """``url`` written through the proxy (a URL already on the proxy is returned as it is).

        Raises:
            ValueError: ``url`` is not an http(s) URL with a host.
        """
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme not in ("http", "https") or not host:
            raise ValueError(f"not an http(s) URL: {url[:200]!r}")
        if self.on_proxy(host):
            return url
        if self.kind == "prefix":
            return self.template.replace(URL_SLOT, quote(url, safe=""))
        name = host.replace("-", "--").replace(".", "-") if parts.scheme == "https" else host
        port = f"p{parts.port}-" if parts.port and parts.port != (443 if parts.scheme == "https" else 80) else ""
        rest = parts.path or "/"
        return f"{parts.scheme}://{port}{name}.{self.template}{rest}" + (f"?{parts.query}" if parts.query else "")

    def is_login(self, url: str) -> bool:
        """Whether ``url`` is the proxy's sign-in page (where an expired or missing session is sent)."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        login_host = host == self.domain or host == f"login.{self.domain}"
        return login_host and parts.path.rstrip("/").lower() in _LOGIN_PATHS

    @property
    def login_url(self) -> str:
        """Where the proxy's sign-in form is (EZproxy: ``https://login.<name>/login``)."""
        if self.kind == "prefix":
            parts = urlsplit(self.template)
            return f"{parts.scheme}://{parts.netloc}/login"
        return f"https://login.{self.template}/login"


def parse_proxy(written: str) -> LibraryProxy:
    """The proxy a setting or a form names: a prefix template (with ``{url}``, or ending ``url=``) or a host suffix.

    Raises:
        ValueError: neither an https prefix with ``{url}`` / ``url=`` nor a host name of at least two labels.
    """
    text = written.strip()
    if len(text) > MAX_PROXY_CHARS:
        raise ValueError(f"a library proxy is at most {MAX_PROXY_CHARS} characters")
    if "://" in text:
        if text.endswith("url=") and URL_SLOT not in text:
            text += URL_SLOT
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https") or not parts.hostname or text.count(URL_SLOT) != 1:
            raise ValueError(
                "a prefix proxy is an http(s) URL with {url} once, e.g. "
                "https://login.ezproxy.example.edu/login?url={url}"
            )
        return LibraryProxy(kind="prefix", template=text)
    host = text.strip(".").lower()
    labels = host.split(".")
    if len(labels) < 2 or not all(label and all(c.isalnum() or c == "-" for c in label) for label in labels):
        raise ValueError("a host proxy is the proxy's name, e.g. ezproxy.example.edu (proxy by hostname)")
    return LibraryProxy(kind="host", template=host)
