"""A fake upstream HTTP server that replays the recorded responses under ``/<source-name>/<public path>``.

End-to-end tests point the server at it with ``SCHOLAR_UPSTREAM_PROXY_BASE=<fake.base_url>`` (DESIGN §6, §10), so
``https://api.semanticscholar.org/graph/v1/paper/X`` is asked as ``<base_url>/s2/graph/v1/paper/X``. Routes come
from the PROVENANCE files (matching policy: tests/fakes/routes.py); tests add routes, inject faults, add latency
and read the request log. It is a real socket server (stdlib ``ThreadingHTTPServer`` on 127.0.0.1, an OS-chosen
port) in a background thread, because the code under test must go through its real HTTP client.

    with FakeUpstream(fixtures_dir()) as fake:
        httpx.get(f"{fake.base_url}/s2/graph/v1/paper/...")

CLI (serves until Ctrl-C): ``python -m tests.fakes.upstream --port 8765 [--fixtures DIR]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import NamedTuple, Self
from urllib.parse import unquote

from tests.fakes.routes import Query, Route, RouteTable, Skipped, content_type_for, load_recorded_routes, parse_query

ROUTE_HEADER = "X-Fake-Upstream-Route"  # names the fixture file (or "explicit"/"fault") that answered
DROP_STATUS = 0  # a Reply with this status closes the connection without answering


class RecordedRequest(NamedTuple):
    """One request the fake received (matched or not); ``path`` is percent-decoded, without the source."""

    method: str
    source: str
    path: str
    query: Query
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()  # as sent (User-Agent, credentials …), names lower-cased


class Reply(NamedTuple):
    """What the server writes back, and how long it waits first."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    delay_s: float


@dataclass
class _Fault:
    source: str
    path_prefix: str
    status: int | None
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    content_type: str
    remaining: int | None
    delay_s: float
    drop: bool = False

    def applies(self, source: str, path: str) -> bool:
        return source == self.source and path.startswith(self.path_prefix) and self.remaining != 0


class FakeUpstream:
    """The recorded upstreams behind one local HTTP server; a context manager that starts and stops it."""

    def __init__(self, fixtures: Path, *, host: str = "127.0.0.1", port: int = 0) -> None:
        """Load the routes of ``fixtures`` (the folder holding PROVENANCE-*.md and upstream/).

        Args:
            fixtures: the recorded fixtures folder (tests get it from ``tests.fixtures_dir.fixtures_dir()``).
            host: the interface to listen on.
            port: the port; 0 lets the OS choose a free one.
        """
        recorded, skipped = load_recorded_routes(fixtures)
        self.routes = RouteTable(recorded)
        self.skipped: list[Skipped] = skipped
        self._address = (host, port)
        self._lock = threading.Lock()
        self._log: list[RecordedRequest] = []
        self._faults: list[_Fault] = []
        self._latency_s = 0.0
        self._source_latency_s: dict[str, float] = {}
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind the port and serve in a daemon thread; return self."""
        self._server = _Server(self._address, _Handler, self)
        serve = functools.partial(self._server.serve_forever, poll_interval=0.05)  # stop() waits one poll at most
        self._thread = threading.Thread(target=serve, name="fake-upstream", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """The proxy base, e.g. ``http://127.0.0.1:54321`` (set ``SCHOLAR_UPSTREAM_PROXY_BASE`` to it)."""
        if self._server is None:
            raise RuntimeError("FakeUpstream is not running: use it as a context manager or call start() first")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- test controls ---------------------------------------------------------------------------------------

    def add_route(
        self,
        method: str,
        source: str,
        path: str,
        *,
        query: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        status: int = 200,
        body: bytes | Path = b"",
        content_type: str | None = None,
        headers: Mapping[str, str] | None = None,
        request_body: bytes | None = None,
    ) -> Route:
        """Register an explicit route; it wins over the recorded ones (policy: tests/fakes/routes.py).

        Args:
            method: HTTP method, e.g. "GET".
            source: source name, e.g. "s2".
            path: public path, e.g. "/graph/v1/paper/X".
            query: the query to require exactly; None accepts any query.
            status: response status.
            body: response bytes, or a file to serve (e.g. a fixture under another path).
            content_type: response Content-Type; guessed from the body when None.
            headers: extra response headers.
            request_body: the request body to require; None accepts any body.

        Returns:
            The route, as registered.
        """
        pairs = None if query is None else tuple(query.items() if isinstance(query, Mapping) else query)
        if content_type is None:
            head = body.read_bytes()[:600] if isinstance(body, Path) else body[:600]
            content_type = content_type_for(str(body) if isinstance(body, Path) else "", head)
        route = Route(
            method=method.upper(),
            source=source,
            path=path,
            query=pairs,
            status=status,
            response=body,
            content_type=content_type,
            request_body=request_body,
            headers=tuple((headers or {}).items()),
            file=body.name if isinstance(body, Path) else None,
            explicit=True,
        )
        with self._lock:
            self.routes.add(route)
        return route

    def inject(
        self,
        source: str,
        path_prefix: str = "/",
        *,
        status: int | None = 429,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str = "application/json",
        times: int | None = 1,
        delay_s: float = 0.0,
        drop: bool = False,
    ) -> None:
        """Make the next ``times`` requests to ``source`` under ``path_prefix`` fail (oldest fault first).

        Args:
            source: source name, e.g. "s2".
            path_prefix: decoded public path prefix, e.g. "/graph/v1/paper/".
            status: the fault's status; None serves the normal response (use with ``delay_s`` for a slow answer).
            headers: response headers; default ``{"Retry-After": "1"}`` for 429 and 503, none otherwise.
            body: response bytes (HTML on a 200, truncated JSON, ...); default a small JSON note.
            content_type: Content-Type of ``body``.
            times: how many requests get the fault; None: every one until ``reset()``.
            delay_s: seconds to wait before answering.
            drop: close the connection without any answer (a dropped connection); ``status`` is ignored.
        """
        if headers is None:
            headers = {"Retry-After": "1"} if status in (429, 503) else {}
        fault = _Fault(source, path_prefix, status, tuple(headers.items()), body, content_type, times, delay_s, drop)
        with self._lock:
            self._faults.append(fault)

    def set_latency(self, seconds: float, *, per_source: Mapping[str, float] | None = None) -> None:
        """Delay every response by ``seconds``, or a source's by its own figure (benchmarks against a realistic
        upstream: ``set_latency(0.0, per_source={"s2": 0.4, "crossref": 1.2})``)."""
        with self._lock:
            self._latency_s = seconds
            self._source_latency_s = dict(per_source or {})

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received since the last ``reset()``, oldest first."""
        with self._lock:
            return list(self._log)

    def count(self, source: str | None = None, path_prefix: str | None = None) -> int:
        """Count the requests received, optionally only those to ``source`` under ``path_prefix``."""
        return sum(
            1
            for r in self.requests
            if (source is None or r.source == source) and (path_prefix is None or r.path.startswith(path_prefix))
        )

    def reset(self) -> None:
        """Forget the request log, pending faults, latency and explicit routes (recorded routes stay)."""
        with self._lock:
            self._log.clear()
            self._faults.clear()
            self._latency_s = 0.0
            self._source_latency_s = {}
            self.routes.clear_explicit()

    # -- serving ---------------------------------------------------------------------------------------------

    def respond(self, method: str, target: str, body: bytes, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
        """Answer one request: log it, apply a pending fault, else serve the matching route, else 404.

        Args:
            method: HTTP method.
            target: the request target, e.g. ``/s2/graph/v1/paper/X?fields=title``.
            body: the request body.
        """
        raw_path, _, raw_query = target.partition("?")
        source, _, rest = raw_path.lstrip("/").partition("/")
        source, path, query = unquote(source), "/" + rest, parse_query(raw_query)
        with self._lock:
            self._log.append(RecordedRequest(method, source, unquote(path), query, body, headers))
            fault = next((f for f in self._faults if f.applies(source, unquote(path))), None)
            if fault is not None and fault.remaining is not None:
                fault.remaining -= 1
            delay = self._source_latency_s.get(source, self._latency_s) + (fault.delay_s if fault else 0.0)
            route = self.routes.match(method, source, path, query, body)
        if fault is not None and fault.drop:
            return Reply(DROP_STATUS, (), b"", delay)
        if fault is not None and fault.status is not None:
            note = json.dumps({"fake_upstream": "injected fault", "status": fault.status}).encode()
            headers = (("Content-Type", fault.content_type), (ROUTE_HEADER, "fault"), *fault.headers)
            return Reply(fault.status, headers, note if fault.body is None else fault.body, delay)
        if route is None:
            note = {"fake_upstream": "no route", "method": method, "source": source, "path": unquote(path)}
            headers = (("Content-Type", "application/json"), (ROUTE_HEADER, "none"))
            return Reply(404, headers, json.dumps(note).encode(), delay)
        name = "explicit" if route.explicit else route.file or ""
        headers = (("Content-Type", route.content_type), (ROUTE_HEADER, name), *route.headers)
        return Reply(route.status, headers, route.read(), delay)


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a client that keeps a connection open must not block stop()

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], fake: FakeUpstream) -> None:
        self.fake = fake
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real upstreams; every reply carries Content-Length
    disable_nagle_algorithm = True  # headers and body go out in two writes: Nagle would hold the body ~40 ms
    server: _Server

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = tuple((name.lower(), value) for name, value in self.headers.items())
        reply = self.server.fake.respond(self.command, self.path, body, headers)
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.status == DROP_STATUS:
            self.close_connection = True  # no status line, no body: the client sees the connection drop
            return
        try:
            self.send_response(reply.status)
            for name, value in reply.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply.body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. its timeout was shorter than our delay)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle

    def log_message(self, fmt: str, *args: object) -> None:
        """Stay quiet; the request log is ``FakeUpstream.requests``."""


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the recorded fixtures until Ctrl-C (for ``make serve`` demos against fixtures)."""
    parser = argparse.ArgumentParser(prog="python -m tests.fakes.upstream", description=main.__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--fixtures", type=Path, default=None, help="default: $SCHOLAR_FIXTURES_DIR, else ../shared/fixtures"
    )
    args = parser.parse_args(argv)
    fixtures = args.fixtures or _default_fixtures()
    with FakeUpstream(fixtures, host=args.host, port=args.port) as fake:
        print(f"fake upstream: {len(fake.routes.recorded)} recorded routes from {fixtures}", flush=True)
        print(f"set SCHOLAR_UPSTREAM_PROXY_BASE={fake.base_url}  (Ctrl-C stops)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopped")


def _default_fixtures() -> Path:
    """$SCHOLAR_FIXTURES_DIR, else ../shared/fixtures (as tests.fixtures_dir finds them, without pytest: a demo runs
    in a venv that has none)."""
    path = Path(os.environ.get("SCHOLAR_FIXTURES_DIR") or Path(__file__).resolve().parents[2].parent / "shared" /
                "fixtures")
    if not path.is_dir():
        raise SystemExit(f"recorded upstream fixtures not found at {path} (set SCHOLAR_FIXTURES_DIR or --fixtures)")
    return path


if __name__ == "__main__":
    main()
