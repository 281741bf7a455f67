"""`make serve` on a busy port: it fails at once, before the stack starts or a banner claims the URL."""

from __future__ import annotations

import socket

import pytest

from scholar.local import server


class StackMustNotStart:
    def __init__(self, **kwargs: object) -> None:
        raise AssertionError("the AWS stand-in started although the port was busy")


def test_a_busy_port_stops_serve_before_the_banner_and_names_the_setting(monkeypatch, capsys):
    monkeypatch.setattr(server, "LocalStack", StackMustNotStart)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        with pytest.raises(SystemExit) as stopped:
            server.serve("127.0.0.1", port)
    message = str(stopped.value)
    assert "SCHOLAR_PORT" in message and str(port) in message
    assert "Scholar MCP at" not in capsys.readouterr().out


def test_a_free_port_is_bound_before_the_stack_starts(monkeypatch):
    bound: list[int] = []

    class RecordingStack(StackMustNotStart):
        def __init__(self, **kwargs: object) -> None:
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                bound.append(port)  # already ours: the server bound it first
            finally:
                probe.close()
            raise RuntimeError("stop here")

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as finder:
        finder.bind(("127.0.0.1", 0))
        port = finder.getsockname()[1]
    monkeypatch.setattr(server, "LocalStack", RecordingStack)
    with pytest.raises(RuntimeError):
        server.serve("127.0.0.1", port)
    assert bound == [port]
