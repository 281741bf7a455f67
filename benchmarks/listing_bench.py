"""What every client pays before its first question: the listing's weight per profile, and tools/list beside the peer.

Per profile (scholar.core.catalogue.PROFILES): the tools listed, the characters a model reads (each tool's description
plus its input schema as compact JSON, ``ToolSpec.listing_chars``) and the bytes of the whole tools/list result as
the SDK sends it (output schemas included), against DESIGN §3's bars. Then the in-memory tools/list of each
profile through the SDK's ``Client(server)`` beside the nearest peer's in the same run (benchmarks.peer_bench:
the peer is installed into ``.bench/peer``; bar: the default profile's ratio ours / peer ≤ 1.0).

``python -m benchmarks.listing_bench [--calls N]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
from pathlib import Path

from benchmarks import peer_bench

REPO = Path(__file__).resolve().parents[1]
CALLS = 200
# DESIGN §3: characters a model reads, and the default listing's bytes with its output schemas.
CHAR_BARS = {"default": 20_000, "all": 40_000}
DEFAULT_BYTES_BAR = 100 * 1024


def weights() -> None:
    from scholar.core.catalogue import PROFILES
    from scholar.families import all_tools
    from scholar.families.profiles import profile_tools
    from scholar.gateway.mcp.server import _listing

    tools = all_tools()
    for name in PROFILES:
        names = profile_tools(name)
        chars = sum(tools[n].listing_chars() for n in names)
        size = len(json.dumps(_listing(names), separators=(",", ":")).encode())
        bar = CHAR_BARS.get(name)
        line = f"  profile {name:<8} {len(names):3d} tools   {chars:7,d} characters a model reads"
        if bar:
            line += f" (bar {bar:,}: {'ok' if chars <= bar else 'OVER'})"
        line += f"   tools/list {size / 1024:6.1f} kB"
        if name == "default":
            line += f" (bar {DEFAULT_BYTES_BAR // 1024} kB: {'ok' if size <= DEFAULT_BYTES_BAR else 'OVER'})"
        print(line, flush=True)


def main(fixtures: Path, calls: int = CALLS) -> None:
    print(f"== listing weight per profile, and in-memory tools/list beside {peer_bench.PEER} "
          f"(load {os.getloadavg()[0]:.2f}) ==", flush=True)
    weights()
    try:
        python = peer_bench.peer_python()
    except subprocess.CalledProcessError as exc:  # offline, or the registry is unreachable: the weights still print
        print(f"  the peer could not be installed into {peer_bench.PEER_VENV} ({exc}); tools/list not compared")
        return
    cache = REPO / ".bench" / "peer-cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    peer_bench.in_memory_list(python, calls, cache)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=CALLS)
    args = parser.parse_args()
    main(Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures")), calls=args.calls)
