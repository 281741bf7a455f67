"""Side by side with the nearest peer, ``pvliesdonk-scholar-mcp`` 2.0.0, in the same run on the same machine.

The peer is installed (bench-only, never a dependency of ours) into a throw-away venv ``.bench/peer``.
Three figures each, and the ratio ours / peer (below 1: ours is ahead):

- cold import of the server module in a fresh interpreter (ours: ``functions.gateway.app`` as shipped,
  unchecked-hash .pyc, see imports_bench; the peer: ``scholar_mcp.server``, .pyc as pip compiled them);
- tools/list through each SDK's in-memory client (ours: ``mcp.Client`` on our low-level server, per profile;
  the peer: ``fastmcp.Client`` on ``make_server()``), run by benchmarks.listing_bench;
- a cached ``get_paper`` over each server's HTTP endpoint, both against the same fake upstream
  (tests/fakes/upstream.py, the recorded responses): ours is the local stack (uvicorn → gateway → moto
  Lambda → papers → moto DynamoDB); the peer is its own ``serve --transport http`` setup (uvicorn on
  ``http_app``, stateful sessions: one initialize, then calls with the session id; SQLite cache).

How the peer is pointed at the fake upstream (read from its installed source): its base URLs are module
constants, not settings (``scholar_mcp._s2_client._S2_BASE``, ``scholar_mcp._server_deps._OPENALEX_BASE`` …),
so the launcher below replaces them before the server is built, as ``SCHOLAR_UPSTREAM_PROXY_BASE`` does for
ours. Its cache goes to ``SCHOLAR_MCP_CACHE_DIR`` (a fresh folder per run); an S2 key is set only so its
client paces at 0.1 s instead of 1.1 s on the first, uncached call.

``python -m benchmarks.peer_bench [--runs N] [--calls N]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx

from benchmarks import imports_bench
from benchmarks.common import report, timed

REPO = Path(__file__).resolve().parents[1]
PEER = "pvliesdonk-scholar-mcp==2.0.0"
PEER_VENV = REPO / ".bench" / "peer"
PNAS = "10.1073/pnas.1414271111"
RUNS = 20
CALLS = 200
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}

# The peer's base URLs (module constants) → the fake upstream's /<source>/<public path>.
PEER_BASES = {
    "scholar_mcp._s2_client": {"_S2_BASE": "s2/graph/v1"},
    "scholar_mcp._server_deps": {
        "_OPENALEX_BASE": "openalex", "_CROSSREF_BASE": "crossref",
        "_GOOGLE_BOOKS_BASE": "google_books/books/v1", "_OPENLIBRARY_BASE": "openlibrary",
    },
    "scholar_mcp._pdf_url_resolver": {"_UNPAYWALL_BASE": "unpaywall/v2"},
    "scholar_mcp._openlibrary_client": {"_COVER_BASE": "covers/b/isbn"},
}

PEER_LIST = """
import asyncio, json, statistics, sys, time
from fastmcp import Client
from scholar_mcp.server import make_server

async def main(server, n):
    async with Client(server) as client:
        tools = await client.list_tools()
        for _ in range(20):
            await client.list_tools()
        out = []
        for _ in range(n):
            began = time.perf_counter()
            await client.list_tools()
            out.append((time.perf_counter() - began) * 1000)
    size = len(json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]))
    chars = sum(len(t.description or "") + len(json.dumps(t.inputSchema, separators=(",", ":"))) for t in tools)
    print(json.dumps({"tools": len(tools), "bytes": size, "chars": chars, "ms": out}))

server = make_server()  # outside the loop: the peer finalizes its instructions synchronously
asyncio.run(main(server, int(sys.argv[1])))
"""

OUR_LIST = """
import json, sys, time
import anyio
from mcp import Client
from scholar.gateway.mcp.server import build_server

async def main(n):
    async with Client(build_server()) as client:
        tools = (await client.list_tools()).tools
        for _ in range(20):
            await client.list_tools()
        out = []
        for _ in range(n):
            began = time.perf_counter()
            await client.list_tools()
            out.append((time.perf_counter() - began) * 1000)
    size = len(json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]))
    chars = sum(len(t.description or "") + len(json.dumps(t.input_schema, separators=(",", ":"))) for t in tools)
    print(json.dumps({"tools": len(tools), "bytes": size, "chars": chars, "ms": out}))

anyio.run(main, int(sys.argv[1]))
"""

PEER_SERVE = """
import importlib, json, sys
base, port = sys.argv[1], int(sys.argv[2])
for module, names in json.loads(sys.argv[3]).items():
    mod = importlib.import_module(module)
    for name, path in names.items():
        setattr(mod, name, f"{base}/{path}")
import uvicorn
from scholar_mcp.server import make_server
server = make_server(transport="http", http_path="/mcp")
uvicorn.run(server.http_app(path="/mcp"), host="127.0.0.1", port=port, lifespan="on", log_level="warning")
"""


def peer_python() -> Path:
    """The peer venv's interpreter, creating the venv and installing the peer on first use."""
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        # sys._base_executable: the real interpreter, not ours.
        subprocess.run([sys._base_executable, "-m", "venv", str(PEER_VENV)], check=True)
    check = subprocess.run([str(python), "-c", "import scholar_mcp"], capture_output=True)
    if check.returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", PEER], check=True)
    return python


def _peer_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCHOLAR_", "PYTHONPATH"))}
    env.update(SCHOLAR_MCP_CACHE_DIR=str(cache), SCHOLAR_MCP_S2_API_KEY="bench", SCHOLAR_MCP_READ_ONLY="true")
    return env


def _ms(python: Path, code: str, env: dict[str, str], cwd: Path) -> float:
    out = subprocess.run([str(python), "-c", code], env=env, cwd=cwd, check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def _ratio(name: str, ours: list[float], peer: list[float]) -> None:
    o, p = statistics.median(ours), statistics.median(peer)
    print(f"  {name:<56} ours {o:9.2f} ms   peer {p:9.2f} ms   ratio ours/peer {o / p:5.2f} "
          f"({'ours ahead' if o < p else 'PEER AHEAD'})", flush=True)


def cold_imports(python: Path, runs: int, cache: Path) -> None:
    build_dir = imports_bench.build()
    code = "import time;t=time.perf_counter();import {};print((time.perf_counter()-t)*1000)"
    ours = [imports_bench.cold_import_ms("functions.gateway.app", build_dir) for _ in range(runs)]
    peer = [_ms(python, code.format("scholar_mcp.server"), _peer_env(cache), cache) for _ in range(runs)]
    report("cold import, ours (functions.gateway.app)", ours, 800.0)
    report("cold import, peer (scholar_mcp.server)", peer)
    _ratio("cold import", ours, peer)


def our_list(calls: int, profile: str) -> dict:
    """Our in-memory tools/list in a fresh interpreter, listing ``profile`` (SCHOLAR_PROFILE): tools, bytes, ms."""
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'shared'}{os.pathsep}{REPO}", "SCHOLAR_PROFILE": profile}
    env.pop("SCHOLAR_TOOLSETS", None)
    out = subprocess.run([sys.executable, "-c", OUR_LIST, str(calls)], env=env, cwd=REPO, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def peer_list(python: Path, calls: int, cache: Path) -> dict:
    """The peer's in-memory tools/list (fastmcp.Client on make_server()): tools, bytes, ms."""
    out = subprocess.run([str(python), "-c", PEER_LIST, str(calls)], env=_peer_env(cache), cwd=cache, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def in_memory_list(python: Path, calls: int, cache: Path, profiles: tuple[str, ...] = ("default", "all"),
                   rounds: int = 3) -> None:
    """Each of our profiles' in-memory tools/list beside the peer's, in the same run (bar: default ratio ≤ 1.0).

    The runs alternate (peer, then each profile, ``rounds`` times) so that a change of load on a shared machine
    falls on both sides alike; the samples of a side are pooled.
    """
    per_round = max(1, calls // rounds)
    peer_ms: list[float] = []
    ours_ms: dict[str, list[float]] = {profile: [] for profile in profiles}
    shapes: dict[str, dict] = {}
    for _ in range(rounds):
        peer = peer_list(python, per_round, cache)
        peer_ms += peer["ms"]
        for profile in profiles:
            ours = our_list(per_round, profile)
            ours_ms[profile] += ours["ms"]
            shapes[profile] = ours
    report(f"in-memory tools/list, peer ({peer['tools']} tools, {peer['bytes'] // 1000} kB, "
           f"{peer['chars']:,} chars)", peer_ms)
    for profile in profiles:
        shape = shapes[profile]
        report(f"in-memory tools/list, ours {profile} ({shape['tools']} tools, {shape['bytes'] // 1000} kB, "
               f"{shape['chars']:,} chars)", ours_ms[profile])
        _ratio(f"in-memory tools/list, profile {profile}", ours_ms[profile], peer_ms)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _result(response: httpx.Response) -> dict:
    """The JSON-RPC message of a JSON or a one-event SSE answer."""
    assert response.status_code == 200, response.text[:300]
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def _call_body(n: int) -> dict:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "get_paper", "arguments": {"identifier": PNAS}}}


def _ours_over_http(fixtures: Path, calls: int) -> list[float]:
    from scholar.local.server import LocalServer
    from scholar.store import aws
    from tests.fakes.upstream import FakeUpstream

    with FakeUpstream(fixtures) as fake:
        env = {"SCHOLAR_UPSTREAM_PROXY_BASE": fake.base_url, "SCHOLAR_PACE_SCALE": "0"}
        with LocalServer(template=REPO / "template.yaml", extra_env=env) as server:
            aws.reset_clients()
            headers = {**HEADERS, "mcp-protocol-version": "2025-11-25"}
            with httpx.Client(trust_env=False, timeout=30, headers=headers) as http:
                def once() -> None:
                    answer = _result(http.post(server.url, json=_call_body(2)))
                    assert not answer["result"].get("isError"), answer

                return timed(once, calls, 10)


def _peer_over_http(python: Path, fixtures: Path, calls: int, cache: Path) -> list[float]:
    from tests.fakes.upstream import FakeUpstream

    with FakeUpstream(fixtures) as fake:
        port = _free_port()
        url = f"http://127.0.0.1:{port}/mcp"
        log = (cache / "peer-server.log").open("wb")  # a file, not a pipe: its per-call log lines would fill a pipe
        proc = subprocess.Popen([str(python), "-c", PEER_SERVE, fake.base_url, str(port), json.dumps(PEER_BASES)],
                                env=_peer_env(cache), cwd=cache, stdout=subprocess.DEVNULL, stderr=log)
        try:
            with httpx.Client(trust_env=False, timeout=60, headers=HEADERS) as http:
                deadline = time.monotonic() + 60
                while True:  # wait (bounded) for uvicorn to listen
                    try:
                        init = http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                            "protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "bench", "version": "1"}}})
                        break
                    except httpx.TransportError:
                        if time.monotonic() > deadline or proc.poll() is not None:
                            raise RuntimeError(f"the peer did not start; see {log.name}") from None
                        time.sleep(0.2)
                _result(init)
                session = {"mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
                http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)

                def once() -> None:
                    answer = _result(http.post(url, json=_call_body(2), headers=session))
                    assert not answer["result"].get("isError"), answer

                once()  # the first call fills the peer's cache
                return timed(once, calls, 10)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            log.close()


def over_http(python: Path, fixtures: Path, calls: int, cache: Path) -> None:
    ours = _ours_over_http(fixtures, calls)
    peer = _peer_over_http(python, fixtures, calls, cache)
    report("cached get_paper over HTTP, ours (local stack)", ours, 10.0)
    report("cached get_paper over HTTP, peer (uvicorn, SQLite cache)", peer)
    _ratio("cached get_paper over HTTP", ours, peer)


def main(fixtures: Path, runs: int = RUNS, calls: int = CALLS) -> None:
    print(f"== side by side with {PEER} (load {os.getloadavg()[0]:.2f}) ==", flush=True)
    try:
        python = peer_python()
    except subprocess.CalledProcessError as exc:  # offline, or the registry is unreachable: the rest still runs
        print(f"  the peer could not be installed into {PEER_VENV} ({exc}); skipped", flush=True)
        return
    cache = REPO / ".bench" / "peer-cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    cold_imports(python, runs, cache)
    over_http(python, fixtures, calls, cache)  # the in-memory tools/list, per profile: benchmarks.listing_bench


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=textwrap.dedent(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--calls", type=int, default=CALLS)
    args = parser.parse_args()
    fixtures_dir = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
    main(fixtures_dir, runs=args.runs, calls=args.calls)
