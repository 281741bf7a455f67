"""Every path of the local server is guarded and answers 4xx, never 500 (issue #31 items 4 and 7).

The trial found ``/.well-known/*``, ``/oauth/*`` and ``/local-oidc/*`` answering foreign Host/Origin requests as
usual (40/40) where ``/mcp`` answers 421, and the sign-in stand-in's token endpoint answering 500 to a malformed
Basic header or an oversized declared body.
"""

from __future__ import annotations

import socket

import pytest

pytestmark = pytest.mark.e2e

PATHS = [
    ("GET", "/.well-known/oauth-authorization-server"),
    ("GET", "/.well-known/oauth-protected-resource/mcp"),
    ("GET", "/oauth/authorize"),
    ("POST", "/oauth/register"),
    ("POST", "/oauth/token"),
    ("GET", "/local-oidc/.well-known/openid-configuration"),
    ("GET", "/local-oidc/jwks"),
    ("POST", "/local-oidc/token"),
]


def _own(flow) -> str:
    return flow.base.removeprefix("http://")


@pytest.mark.parametrize(("method", "path"), PATHS)
@pytest.mark.parametrize("host", ["evil.example", "{own}.evil.example", "{own}@evil.example"])
def test_a_foreign_host_is_misdirected_on_every_path(flow, method, path, host):
    answer = flow.http.request(method, f"{flow.base}{path}", headers={"host": host.format(own=_own(flow))})
    assert answer.status_code == 421, answer.text
    assert answer.json()["error"] == "invalid_request"


@pytest.mark.parametrize(("method", "path"), PATHS)
def test_a_foreign_origin_is_forbidden_on_every_path(flow, method, path):
    answer = flow.http.request(method, f"{flow.base}{path}", headers={"origin": f"http://{_own(flow)}.evil.example"})
    assert answer.status_code == 403, answer.text


def test_the_guard_lets_this_servers_own_host_and_origin_through(flow):
    answer = flow.http.get(f"{flow.base}/.well-known/oauth-authorization-server",
                           headers={"origin": f"http://{_own(flow)}"})
    assert answer.status_code == 200


@pytest.mark.parametrize("authorization", ["Basic a", "Basic //79", "Basic bm9jb2xvbg=="])
def test_the_stand_ins_token_endpoint_refuses_malformed_basic_credentials_with_401(flow, authorization):
    # "a": not base64; "//79": base64 of bytes that are not UTF-8; "bm9jb2xvbg==": "nocolon"
    answer = flow.http.post(f"{flow.base}/local-oidc/token", data={"grant_type": "authorization_code", "code": "x"},
                            headers={"authorization": authorization})
    assert answer.status_code == 401, answer.text
    assert answer.json()["error"] == "invalid_client"


def test_the_stand_ins_token_endpoint_refuses_a_declared_oversized_body_with_413(flow):
    host, port = _own(flow).rsplit(":", 1)
    head = (f"POST /local-oidc/token HTTP/1.1\r\nHost: {_own(flow)}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 4194305\r\n\r\ncode=x").encode()
    with socket.create_connection((host, int(port)), timeout=10) as conn:  # httpx would not send a length it lacks
        conn.sendall(head)
        status = conn.recv(4096).split(b"\r\n", 1)[0]
    assert status == b"HTTP/1.1 413 Content Too Large"
