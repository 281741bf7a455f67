"""A library proxy as written in a setting or on the connect page, and publisher URLs written through it (pure)."""

from __future__ import annotations

import pytest

from scholar.core.library_proxy import LibraryProxy, parse_proxy

PREFIX = "https://login.ezproxy.example.edu/login?url={url}"
HOST = "ezproxy.example.edu"


@pytest.mark.parametrize(("written", "kind", "template"), [
    (PREFIX, "prefix", PREFIX),
    ("https://login.ezproxy.example.edu/login?url=", "prefix", PREFIX),
    ("https://go.openathens.net/redirector/example.edu?url=", "prefix",
     "https://go.openathens.net/redirector/example.edu?url={url}"),
    ("ezproxy.example.edu", "host", HOST),
    (".EZproxy.Example.edu", "host", HOST),
])
def test_a_proxy_is_a_prefix_with_a_url_slot_or_a_host_suffix(written: str, kind: str, template: str) -> None:
    proxy = parse_proxy(written)
    assert (proxy.kind, proxy.template) == (kind, template)


@pytest.mark.parametrize("written", [
    "ftp://login.ezproxy.example.edu/login?url={url}", "https://login.ezproxy.example.edu/login",
    "https://x.example/{url}?again={url}", "localhost", "ezproxy example.edu", "x" * 600,
])
def test_what_is_neither_is_refused(written: str) -> None:
    with pytest.raises(ValueError):
        parse_proxy(written)


@pytest.mark.parametrize(("proxy", "url", "proxied"), [
    # prefix: the target URL-encoded once
    (PREFIX, "https://www.nature.com/articles/s41586-020-2649-2.pdf",
     "https://login.ezproxy.example.edu/login?url=https%3A%2F%2Fwww.nature.com%2Farticles%2Fs41586-020-2649-2.pdf"),
    (PREFIX, "https://doi.org/10.1000/a?b=c&d",
     "https://login.ezproxy.example.edu/login?url=https%3A%2F%2Fdoi.org%2F10.1000%2Fa%3Fb%3Dc%26d"),
    # host: https dots → dashes (a dash doubled), the proxy's name appended; path and query kept
    (HOST, "https://www.nature.com/articles/x.pdf", "https://www-nature-com.ezproxy.example.edu/articles/x.pdf"),
    (HOST, "https://onlinelibrary.wiley-vch.de/doi/pdf/10.1/x?download=true",
     "https://onlinelibrary-wiley--vch-de.ezproxy.example.edu/doi/pdf/10.1/x?download=true"),
    (HOST, "https://doi.org/10.1000/a", "https://doi-org.ezproxy.example.edu/10.1000/a"),
    (HOST, "https://WWW.Nature.COM", "https://www-nature-com.ezproxy.example.edu/"),
    # http keeps its dots (EZproxy without https hyphens); a port other than the scheme's is named p<port>-
    (HOST, "http://www.somedb.com/x", "http://www.somedb.com.ezproxy.example.edu/x"),
    (HOST, "http://www.otherdb.com:180/x", "http://p180-www.otherdb.com.ezproxy.example.edu/x"),
    # already on the proxy: unchanged (a landing's rewritten citation_pdf_url)
    (HOST, "https://www-nature-com.ezproxy.example.edu/x.pdf", "https://www-nature-com.ezproxy.example.edu/x.pdf"),
    (PREFIX, "https://www-nature-com.ezproxy.example.edu/x.pdf", "https://www-nature-com.ezproxy.example.edu/x.pdf"),
])
def test_a_publisher_url_is_written_through_the_proxy(proxy: str, url: str, proxied: str) -> None:
    assert parse_proxy(proxy).proxied(url) == proxied


def test_the_proxy_domain_is_where_the_session_goes_and_nowhere_else() -> None:
    prefix, host = parse_proxy(PREFIX), parse_proxy(HOST)
    assert prefix.domain == host.domain == HOST  # EZproxy signs in at login.<name>, serves below <name>
    assert prefix.on_proxy("www-nature-com.ezproxy.example.edu") and prefix.on_proxy("login.ezproxy.example.edu")
    assert not prefix.on_proxy("www.nature.com") and not prefix.on_proxy("evilezproxy.example.edu")
    assert not host.on_proxy("ezproxy.example.edu.evil.test")


@pytest.mark.parametrize(("url", "login"), [
    ("https://login.ezproxy.example.edu/login?qurl=https%3A%2F%2Fx", True),
    ("https://ezproxy.example.edu/login", True),
    ("https://www-nature-com.ezproxy.example.edu/login", False),
    ("https://login.ezproxy.example.edu/menu", False),
])
def test_the_sign_in_page_is_told_apart(url: str, login: bool) -> None:
    assert parse_proxy(HOST).is_login(url) is login


def test_a_url_that_is_not_http_cannot_be_proxied() -> None:
    with pytest.raises(ValueError):
        LibraryProxy(kind="host", template=HOST).proxied("file:///etc/passwd")
