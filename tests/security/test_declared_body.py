"""A body is refused by what it announces: a Content-Length over the cap is 413 at once, before a byte is read, so a
client announcing more than it sends gets an answer instead of a 30 s silence (issue #22 item 2)."""

from __future__ import annotations

import json
import socket
from typing import Any

import anyio
import pytest

from scholar.gateway.mcp.app import MAX_BODY_BYTES
from scholar.gateway.mcp.checks import drain, read_body
from tests.security.conftest import GatewayServer

BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
# Long enough for any answer here; a request that hangs (today's failure) runs into it.
ANSWER_WITHIN_S = 10.0


def raw_post(server: GatewayServer, headers: str, body: bytes) -> bytes:
    """Send a hand-written request (httpx would not send a length it cannot keep) and read the status line."""
    host, port = server.host_header.rsplit(":", 1)
    head = (f"POST /mcp HTTP/1.1\r\nHost: {server.host_header}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n{headers}\r\n").encode()
    with socket.create_connection((host, int(port)), timeout=ANSWER_WITHIN_S) as conn:
        conn.sendall(head + body)
        try:
            return conn.recv(4096).split(b"\r\n", 1)[0]
        except TimeoutError:
            return b"(no answer)"


@pytest.mark.parametrize("declared", ["99999999999999999999", str(MAX_BODY_BYTES + 1), str(50 * 1024 * 1024)])
def test_a_declared_length_over_the_cap_is_answered_413_at_once(gateway_server, declared: str) -> None:
    assert raw_post(gateway_server, f"Content-Length: {declared}\r\n", BODY) == b"HTTP/1.1 413 Content Too Large"


def test_a_chunked_body_that_also_declares_a_length_over_the_cap_is_answered_413(gateway_server) -> None:
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY)
    headers = "Transfer-Encoding: chunked\r\nContent-Length: 99999999999999999999\r\n"
    assert raw_post(gateway_server, headers, chunked) == b"HTTP/1.1 413 Content Too Large"


def test_a_chunked_body_over_the_cap_is_answered_413_once_the_cap_is_passed(gateway_server) -> None:
    size = MAX_BODY_BYTES + 1024
    chunked = b"%x\r\n%s\r\n" % (size, b"a" * size)  # no last chunk: the answer must not wait for one
    assert raw_post(gateway_server, "Transfer-Encoding: chunked\r\n", chunked) == b"HTTP/1.1 413 Content Too Large"


@pytest.mark.parametrize("declared", ["abc", "-1", "1e9", "0x10"])
def test_a_length_that_is_not_a_number_is_refused_400_by_the_http_parser(gateway_server, declared: str) -> None:
    # uvicorn's h11 parser refuses it before the app sees the request (RFC 9110 §8.6: an invalid length is an
    # unrecoverable framing error), so no cap could be read from it.
    assert raw_post(gateway_server, f"Content-Length: {declared}\r\n", BODY) == b"HTTP/1.1 400 Bad Request"


def test_a_declared_length_within_the_cap_is_read_and_answered(gateway_server) -> None:
    assert raw_post(gateway_server, f"Content-Length: {len(BODY)}\r\n", BODY) == b"HTTP/1.1 200 OK"


# -- the two halves, without a server --------------------------------------------------------------------------


async def _never(*_: Any) -> dict[str, Any]:
    raise AssertionError("read_body read a body it had already refused")


def test_read_body_refuses_an_over_long_declaration_without_receiving() -> None:
    body = anyio.run(read_body, _never, {b"content-length": b"99999999999999999999"}, MAX_BODY_BYTES)
    assert body.too_large and body.data == b""


def test_draining_a_client_that_sends_nothing_more_ends_within_its_time_bound() -> None:
    async def main() -> bool:
        idle = anyio.Event()

        async def receive() -> dict[str, Any]:
            await idle.wait()  # a client that announced more than it will ever send
            return {"type": "http.disconnect"}

        with anyio.fail_after(5):
            await drain(receive, within_s=0.05)
        return idle.is_set()

    assert anyio.run(main) is False


def test_draining_stops_at_its_byte_bound() -> None:
    received: list[int] = []

    async def receive() -> dict[str, Any]:
        received.append(1)
        return {"type": "http.request", "body": b"a" * 1024, "more_body": True}

    async def main() -> None:
        with anyio.fail_after(5):
            await drain(receive, limit_bytes=10 * 1024)

    anyio.run(main)
    assert len(received) == 11
