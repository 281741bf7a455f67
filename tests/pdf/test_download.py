"""download_pdf: streamed, hashed, capped, HTML refused, redirects re-vetted, the vetted address pinned.

Remote hosts are answered by an httpx.MockTransport behind a fake resolver (no socket opens); one
test fetches from a real server on 127.0.0.1 through the test-only allow-list.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from scholar.core.errors import (
    FORBIDDEN,
    NOT_FOUND,
    RATE_LIMITED,
    TIMEOUT,
    TOO_LARGE,
    UPSTREAM_ERROR,
    ScholarError,
)
from scholar.web import download as dl
from scholar.web.download import download_pdf, is_pdf
from scholar.web.ssrf import BLOCKED_ADDRESS
from tests.fixtures_dir import fixtures_dir

PUBLIC = {"papers.example.org": ["93.184.216.34"], "mirror.example.net": ["2606:4700:4700::1111"]}
SMALL_PDF = b"%PDF-1.7\n" + b"0" * 5000 + b"\n%%EOF\n"


async def resolve(host: str, port: int) -> Sequence[str]:
    table = {**PUBLIC, "evil.example.org": ["169.254.169.254"]}
    if host not in table:
        raise OSError(host)
    return table[host]


class Recorder:
    """A MockTransport handler that records every request it answers."""

    def __init__(self, answer: Callable[[httpx.Request], httpx.Response]) -> None:
        self.answer = answer
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer(request)


def fetch(url: str, handler: Recorder, tmp_path: Path, **kwargs: object) -> dl.DownloadedPdf:
    return asyncio.run(
        download_pdf(
            url,
            resolver=resolve,
            transport=httpx.MockTransport(handler),
            dest_dir=tmp_path,
            **kwargs,  # type: ignore[arg-type]  # keyword options of download_pdf
        )
    )


def fails(url: str, handler: Recorder, tmp_path: Path, **kwargs: object) -> ScholarError:
    with pytest.raises(ScholarError) as caught:
        fetch(url, handler, tmp_path, **kwargs)
    assert list(tmp_path.iterdir()) == [], "a refused download leaves no file behind"
    return caught.value


def test_magic_bytes_decide_what_is_a_pdf() -> None:
    assert is_pdf(b"%PDF-1.4\n")
    assert is_pdf(b"\xef\xbb\xbf\r\n%PDF-1.5")
    assert not is_pdf(b"<!DOCTYPE html><p>%PDF-1.4</p>")
    assert not is_pdf(b"PK\x03\x04")
    assert not is_pdf(b"")


def test_a_real_pdf_is_streamed_to_disk_with_its_hash_and_size(tmp_path: Path) -> None:
    body = (fixtures_dir() / "pdfs" / "arxiv_2305.03393v1_page9_only.pdf").read_bytes()
    handler = Recorder(lambda r: httpx.Response(200, content=body, headers={"Content-Type": "application/pdf"}))
    result = fetch("https://papers.example.org/pdf/2305.03393.pdf?dl=1", handler, tmp_path)
    assert result.sha256 == hashlib.sha256(body).hexdigest()
    assert result.size == len(body)
    assert result.path.read_bytes() == body
    assert result.content_type == "application/pdf"
    assert result.final_url == "https://papers.example.org/pdf/2305.03393.pdf?dl=1"


def test_the_connection_goes_to_the_vetted_address_with_the_original_host_and_sni(tmp_path: Path) -> None:
    handler = Recorder(lambda r: httpx.Response(200, content=SMALL_PDF))
    fetch("https://papers.example.org/a.pdf", handler, tmp_path)
    (request,) = handler.requests
    assert request.url.host == "93.184.216.34"
    assert request.headers["Host"] == "papers.example.org"
    assert request.extensions["sni_hostname"] == "papers.example.org"


def test_an_ipv6_host_is_pinned_in_brackets(tmp_path: Path) -> None:
    handler = Recorder(lambda r: httpx.Response(200, content=SMALL_PDF))
    fetch("http://mirror.example.net:8080/a.pdf", handler, tmp_path)
    (request,) = handler.requests
    assert str(request.url) == "http://[2606:4700:4700::1111]:8080/a.pdf"
    assert request.headers["Host"] == "mirror.example.net:8080"


def test_an_html_block_page_with_status_200_is_refused_as_html(tmp_path: Path) -> None:
    page = b"<!DOCTYPE html><html><body>Please verify you are a human</body></html>"
    handler = Recorder(lambda r: httpx.Response(200, content=page, headers={"Content-Type": "text/html"}))
    err = fails("https://papers.example.org/a.pdf", handler, tmp_path)
    assert err.code == UPSTREAM_ERROR
    assert err.reason == dl.HTML_PAGE
    assert err.retryable is False


def test_a_body_without_pdf_magic_is_refused_even_with_a_pdf_content_type(tmp_path: Path) -> None:
    zip_body = b"PK\x03\x04" * 600
    handler = Recorder(lambda r: httpx.Response(200, content=zip_body, headers={"Content-Type": "application/pdf"}))
    err = fails("https://papers.example.org/a.pdf", handler, tmp_path)
    assert err.reason == dl.NOT_PDF


def test_a_declared_size_over_the_cap_is_refused_before_reading(tmp_path: Path) -> None:
    handler = Recorder(lambda r: httpx.Response(200, content=SMALL_PDF, headers={"Content-Length": str(10**9)}))
    err = fails("https://papers.example.org/a.pdf", handler, tmp_path, max_bytes=1000)
    assert err.code == TOO_LARGE
    assert err.reason == dl.TOO_LARGE


def test_a_streamed_body_over_the_cap_is_cut_off(tmp_path: Path) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b"%PDF-1.7\n"
        while True:
            yield b"x" * 4096

    handler = Recorder(lambda r: httpx.Response(200, content=chunks()))
    err = fails("https://papers.example.org/a.pdf", handler, tmp_path, max_bytes=100_000)
    assert err.code == TOO_LARGE


def test_a_body_shorter_than_its_announced_length_is_refused_as_truncated(tmp_path: Path) -> None:
    # The real PDF, cut in half by a dropped connection; the server had announced the whole length.
    body = (fixtures_dir() / "pdfs" / "arxiv_2305.03393v1_page9_only.pdf").read_bytes()

    async def half() -> AsyncIterator[bytes]:
        yield body[: len(body) // 2]

    headers = {"Content-Type": "application/pdf", "Content-Length": str(len(body))}
    handler = Recorder(lambda r: httpx.Response(200, headers=headers, content=half()))
    err = fails("https://papers.example.org/a.pdf", handler, tmp_path)
    assert (err.code, err.reason, err.retryable) == (UPSTREAM_ERROR, dl.TRUNCATED, True)


def test_redirects_are_followed_and_each_hop_is_vetted(tmp_path: Path) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/start":
            return httpx.Response(302, headers={"Location": "/final.pdf"})
        return httpx.Response(200, content=SMALL_PDF)

    handler = Recorder(answer)
    result = fetch("https://papers.example.org/start", handler, tmp_path)
    assert result.final_url == "https://papers.example.org/final.pdf"
    assert result.redirects == ["https://papers.example.org/final.pdf"]
    assert [r.headers["Host"] for r in handler.requests] == ["papers.example.org"] * 2


def test_a_redirect_to_a_metadata_address_is_refused_before_any_request_goes_there(tmp_path: Path) -> None:
    handler = Recorder(lambda r: httpx.Response(302, headers={"Location": "http://evil.example.org/latest/meta-data/"}))
    err = fails("https://papers.example.org/a.pdf", handler, tmp_path)
    assert err.code == FORBIDDEN
    assert err.reason == BLOCKED_ADDRESS
    assert [r.url.host for r in handler.requests] == ["93.184.216.34"]


def test_a_redirect_to_a_literal_loopback_address_is_refused(tmp_path: Path) -> None:
    handler = Recorder(lambda r: httpx.Response(301, headers={"Location": "http://127.0.0.1:2375/"}))
    assert fails("https://papers.example.org/a.pdf", handler, tmp_path).reason == BLOCKED_ADDRESS


def test_more_than_five_redirects_are_refused(tmp_path: Path) -> None:
    handler = Recorder(lambda r: httpx.Response(302, headers={"Location": f"/hop{len(handler.requests)}"}))
    err = fails("https://papers.example.org/a.pdf", handler, tmp_path)
    assert err.reason == dl.TOO_MANY_REDIRECTS
    assert len(handler.requests) == dl.MAX_REDIRECTS + 1


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (404, NOT_FOUND, False),
        (410, NOT_FOUND, False),
        (429, RATE_LIMITED, True),
        (503, UPSTREAM_ERROR, True),
        (403, UPSTREAM_ERROR, False),
    ],
)
def test_http_errors_become_typed_errors(tmp_path: Path, status: int, code: str, retryable: bool) -> None:
    handler = Recorder(lambda r: httpx.Response(status, text="no"))
    err = fails("https://papers.example.org/a.pdf", handler, tmp_path)
    assert (err.code, err.retryable, err.status, err.reason) == (code, retryable, status, dl.HTTP_ERROR)


def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    async def run() -> None:
        never = asyncio.Event()

        async def hang(request: httpx.Request) -> httpx.Response:
            await never.wait()
            return httpx.Response(200)

        await download_pdf(
            "https://papers.example.org/a.pdf",
            resolver=resolve,
            transport=httpx.MockTransport(hang),
            dest_dir=tmp_path,
            timeout_s=0.05,
        )

    with pytest.raises(ScholarError) as caught:
        asyncio.run(run())
    assert caught.value.code == TIMEOUT


def test_a_refused_url_scheme_is_an_invalid_argument(tmp_path: Path) -> None:
    handler = Recorder(lambda r: httpx.Response(200, content=SMALL_PDF))
    err = fails("file:///etc/passwd", handler, tmp_path)
    assert err.code == "invalid_argument"
    assert handler.requests == []


@pytest.fixture
def loopback_server() -> Iterator[tuple[str, list[str]]]:
    """A real HTTP server on 127.0.0.1 serving one PDF; yields (base URL, paths requested)."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # http.server's naming
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/pdf")
            self.send_header("Content-Length", str(len(SMALL_PDF)))
            self.end_headers()
            self.wfile.write(SMALL_PDF)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_loopback_is_refused_unless_the_test_allow_list_names_it(
    loopback_server: tuple[str, list[str]], tmp_path: Path
) -> None:
    base, seen = loopback_server
    with pytest.raises(ScholarError) as caught:
        asyncio.run(download_pdf(f"{base}/a.pdf", dest_dir=tmp_path))
    assert caught.value.reason == BLOCKED_ADDRESS
    assert seen == []
    host_port = base.removeprefix("http://")
    result = asyncio.run(download_pdf(f"{base}/a.pdf", dest_dir=tmp_path, allow_hosts=frozenset({host_port})))
    assert result.path.read_bytes() == SMALL_PDF
    assert seen == ["/a.pdf"]
    # URLs built from our own settings may skip the address check altogether.
    trusted = asyncio.run(download_pdf(f"{base}/b.pdf", dest_dir=tmp_path, allow_private=True))
    assert trusted.sha256 == result.sha256
    assert seen == ["/a.pdf", "/b.pdf"]
