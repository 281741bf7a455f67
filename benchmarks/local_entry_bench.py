"""This machine's entry points as whole processes (issue 32): what a user waits for before the first answer.

- stdio start: from spawning ``scholar mcp`` to the first ``tools/list`` answer (initialize, initialized,
  tools/list written at once on stdin; the clock stops at the tools/list reply on stdout), ours and the nearest
  peer's (``pvliesdonk-scholar-mcp``, installed into ``.bench/peer`` by benchmarks.peer_bench), beside the floor:
  a process that only imports ``mcp`` and pydantic. Bars: ours ≤ 1.0× the peer, ≤ 1.25× the floor. Ours is timed
  once the data folder keeps its tools/list answer (``scholar.gateway.mcp.stored_listing``: what every start but the
  first after an install or upgrade finds); the first start in a fresh folder, which builds and keeps it, is
  reported beside it (no bar).
- ``scholar get-paper`` of a cached paper as a whole process (spawn to exit): ≤ 1.25× the same floor. Cached means
  a store that outlives the process: on the local backend only (on ``SCHOLAR_BACKEND=aws`` every process starts
  a fresh stand-in, so the figure is skipped with a note).

Both ours run against the fake upstream (the recorded responses), pacing off, data in a fresh ``SCHOLAR_HOME``.

``python -m benchmarks.local_entry_bench [--runs N] [--no-peer]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import report
from benchmarks.peer_bench import PNAS, REPO, peer_python

RUNS = 10
FLOOR_CODE = "import mcp, pydantic"
PROTOCOL = "2025-11-25"
REQUESTS = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _ours_env(fake_base: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLAR_")}
    env.update(PYTHONPATH=os.pathsep.join([str(REPO / "shared"), str(REPO)]), SCHOLAR_HOME=str(home),
               SCHOLAR_UPSTREAM_PROXY_BASE=fake_base, SCHOLAR_PACE_SCALE="0",
               SCHOLAR_BACKEND=os.environ.get("SCHOLAR_BACKEND", "local"))
    return env


def first_listing_ms(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """Spawn ``command``, send initialize + tools/list, return ms until the tools/list reply (then stop it)."""
    began = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env=env, cwd=cwd, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(json.dumps(r) + "\n" for r in REQUESTS))
    process.stdin.flush()
    try:
        for line in process.stdout:
            message = json.loads(line)
            if message.get("id") == 2:
                if "result" not in message or not message["result"].get("tools"):
                    raise RuntimeError(f"tools/list failed: {line[:300]}")
                return (time.perf_counter() - began) * 1000
        raise RuntimeError(f"{command[0]} closed stdout before answering tools/list")
    finally:
        process.stdin.close()
        process.terminate()
        process.wait(timeout=30)


def whole_process_ms(command: list[str], env: dict[str, str], cwd: Path) -> float:
    began = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, check=True, capture_output=True)
    return (time.perf_counter() - began) * 1000


def _peer_command(python: Path) -> list[str]:
    return [str(python.parent / "scholar-mcp"), "serve", "--transport", "stdio"]


def main(fixtures: Path, runs: int = RUNS, with_peer: bool = True) -> None:
    from tests.fakes.upstream import FakeUpstream

    print("local entry points (whole processes)", flush=True)
    ours_cmd = [sys.executable, "-m", "scholar.local"]
    with FakeUpstream(fixtures) as fake, tempfile.TemporaryDirectory(prefix="scholar-bench-") as folder:
        home = Path(folder)
        env = _ours_env(fake.base_url, home)
        first_listing_ms([*ours_cmd, "mcp"], env, REPO)  # the first start keeps the tools/list answer
        floor: list[float] = []
        ours: list[float] = []
        for _ in range(runs):  # interleaved, so a change of the machine's load weighs on both alike
            floor.append(whole_process_ms([sys.executable, "-c", FLOOR_CODE], env, home))
            ours.append(first_listing_ms([*ours_cmd, "mcp"], env, REPO))
        report("floor: python -c 'import mcp, pydantic'", floor)
        floor_ms = statistics.median(floor)
        report(f"stdio start → first tools/list, ours ({env['SCHOLAR_BACKEND']} backend)", ours, 1.25 * floor_ms)
        _versus_floor(ours, floor_ms)
        fresh = [first_listing_ms([*ours_cmd, "mcp"], {**env, "SCHOLAR_HOME": str(home / f"fresh-{n}")}, REPO)
                 for n in range(runs)]
        report("stdio start, first in a fresh data folder (no bar)", fresh)
        if with_peer:
            python = peer_python()
            peer_env = {k: v for k, v in os.environ.items() if not k.startswith(("SCHOLAR_", "PYTHONPATH"))}
            peer_env.update(SCHOLAR_MCP_CACHE_DIR=str(home / "peer-cache"), SCHOLAR_MCP_READ_ONLY="true")
            peer = [first_listing_ms(_peer_command(python), peer_env, home) for _ in range(runs)]
            report("stdio start → first tools/list, peer (pvliesdonk-scholar-mcp)", peer)
            print(f"  ratio ours/peer {statistics.median(ours) / statistics.median(peer):.2f} (bar 1.0)", flush=True)
        if env["SCHOLAR_BACKEND"] != "local":
            print("  scholar get-paper (cached): skipped, the aws stand-in keeps nothing between processes", flush=True)
            return
        get_paper = [*ours_cmd, "get-paper", PNAS, "--json"]
        whole_process_ms(get_paper, env, REPO)  # the first run fetches and caches it
        cached = [whole_process_ms(get_paper, env, REPO) for _ in range(runs)]
        report("scholar get-paper (cached), whole process", cached, 1.25 * floor_ms)
        _versus_floor(cached, floor_ms)


def _versus_floor(values_ms: list[float], floor_ms: float) -> None:
    """The figure the issue's bar names: ours over the floor (the bar line's ratio is ours over the bar)."""
    print(f"  ratio ours/floor {statistics.median(values_ms) / floor_ms:.2f} (bar 1.25)", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    fixtures = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
    main(fixtures, runs=args.runs, with_peer=not args.no_peer)
