"""scholar.web.proxy_fetch against the fake EZproxy: sign-in form, session cookie, host rewriting and prefix, expiry,
a publisher landing that is HTML (its citation_pdf_url followed once), and the hops it refuses."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from pydantic import SecretStr

from scholar.core.errors import FORBIDDEN, NOT_FOUND, ScholarError
from scholar.core.library_proxy import parse_proxy
from scholar.web.proxy_fetch import (
    LEFT_PROXY,
    PROXY_NO_PDF,
    PROXY_SESSION_EXPIRED,
    ProxiedPdf,
    ProxySignIn,
    fetch_via_proxy,
)
from scholar.web.ssrf import BLOCKED_ADDRESS, Resolver
from tests.fakes.library_proxy import COOKIE, NAME, PREFIX, FakeLibraryProxy, public_resolver
from tests.proxy.conftest import pdf_bytes

LICENSED = "https://doi.org/10.5555/licensed.1"
ALICE = ProxySignIn("alice", SecretStr("correct horse"))


def fetch(ezproxy: FakeLibraryProxy, url: str = LICENSED, *, written: str = NAME, cookies: dict[str, str] | None = None,
          sign_in: ProxySignIn | None = None, resolver: Resolver = public_resolver) -> ProxiedPdf:
    return asyncio.run(fetch_via_proxy(
        parse_proxy(written), url, cookies=cookies or {}, sign_in=sign_in, max_bytes=10_000_000, timeout_s=10,
        resolver=resolver, transport=ezproxy.transport(), user_agent="scholar-tests"))


def refused(ezproxy: FakeLibraryProxy, url: str = LICENSED, **options: object) -> ScholarError:
    with pytest.raises(ScholarError) as caught:
        fetch(ezproxy, url, **options)  # type: ignore[arg-type]  # the options of fetch, passed through
    return caught.value


@pytest.mark.parametrize("written", [NAME, PREFIX])
def test_without_a_session_the_fetch_signs_in_with_the_form_and_gets_the_pdf_through_the_landing(
        ezproxy: FakeLibraryProxy, written: str) -> None:
    got = fetch(ezproxy, written=written, sign_in=ALICE)
    assert got.data == pdf_bytes() and got.signed_in and ezproxy.sign_ins == 1
    assert got.final_url == f"https://www-pub-example.{NAME}/article/10.5555/licensed.1.pdf"
    assert COOKIE in got.cookies and got.cookies[COOKIE] in ezproxy.sessions
    # the DOI through the proxy, its publisher's landing (HTML), the citation_pdf_url: all on the proxy
    assert [r.split(" ")[1].split("/")[0] for r in ezproxy.requests][-3:] == [
        f"doi-org.{NAME}", f"www-pub-example.{NAME}", f"www-pub-example.{NAME}"]
    assert got.requests == len(ezproxy.requests) == 5


def test_a_held_session_is_sent_as_the_cookie_and_no_sign_in_is_needed(ezproxy: FakeLibraryProxy) -> None:
    got = fetch(ezproxy, cookies={COOKIE: ezproxy.session()})
    assert got.data == pdf_bytes() and not got.signed_in and ezproxy.sign_ins == 0
    assert got.requests == 3


def test_an_expired_session_without_a_sign_in_is_forbidden_naming_the_expiry(ezproxy: FakeLibraryProxy) -> None:
    cookies = {COOKIE: ezproxy.session()}
    ezproxy.expire()
    err = refused(ezproxy, cookies=cookies)
    assert (err.code, err.reason) == (FORBIDDEN, PROXY_SESSION_EXPIRED)
    assert cookies[COOKIE] not in err.message


def test_a_wrong_password_is_tried_once_then_forbidden(ezproxy: FakeLibraryProxy) -> None:
    err = refused(ezproxy, sign_in=ProxySignIn("alice", SecretStr("wrong")))
    assert (err.code, err.reason) == (FORBIDDEN, PROXY_SESSION_EXPIRED)
    assert sum(r.startswith("POST") for r in ezproxy.requests) == 1
    assert "wrong" not in err.message


def test_a_landing_without_citation_pdf_url_is_a_typed_not_found_naming_the_proxy(ezproxy: FakeLibraryProxy) -> None:
    err = refused(ezproxy, "https://doi.org/10.5555/landing.only", cookies={COOKIE: ezproxy.session()})
    assert (err.code, err.reason, err.source) == (NOT_FOUND, PROXY_NO_PDF, "library_proxy")


def test_the_citation_pdf_url_is_followed_once_only(ezproxy: FakeLibraryProxy) -> None:
    err = refused(ezproxy, "https://doi.org/10.5555/looping", cookies={COOKIE: ezproxy.session()})
    assert (err.code, err.reason) == (NOT_FOUND, PROXY_NO_PDF)
    assert sum("www-pub-example" in r for r in ezproxy.requests) == 2  # the landing, then its link: no third


def test_a_hop_off_the_proxy_is_not_followed_and_the_cookie_never_leaves_it(ezproxy: FakeLibraryProxy) -> None:
    err = refused(ezproxy, "https://doi.org/10.5555/offsite", cookies={COOKIE: ezproxy.session()})
    assert (err.code, err.reason) == (FORBIDDEN, LEFT_PROXY)
    assert not any(PUBLISHER_HOST in r for r in ezproxy.requests)


PUBLISHER_HOST = " www.pub.example/"


def test_every_hop_goes_through_the_ssrf_guard(ezproxy: FakeLibraryProxy) -> None:
    async def private(host: str, port: int) -> Sequence[str]:
        return ["10.0.0.7"]  # a proxy name set to point inside the network

    err = refused(ezproxy, sign_in=ALICE, resolver=private)
    assert (err.code, err.reason) == (FORBIDDEN, BLOCKED_ADDRESS)
    assert ezproxy.requests == []
