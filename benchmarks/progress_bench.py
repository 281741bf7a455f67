"""Time to the first progress message of long work (issue 41): what a researcher waits before seeing anything.

- stdio: ``scholar mcp`` driven by the MCP SDK's own client; from sending tools/call (with a progressToken, the SDK's
  ``progress_callback``) to the first ``notifications/progress``, and to the answer, for ``search`` (the fan-out) and
  ``download_paper`` of a paper not kept yet (download → convert, waited for in-line).
- command line: ``scholar download-paper`` as a whole process with stderr a pipe (a plain line per step); from spawn
  to its first stderr line, and to exit.

Bar: the first message within 1 s of the call (stdio) for every long tool. Against the fake upstream (recorded
responses, the arXiv PDF route of tests/packaging), pacing off, each run in a fresh ``SCHOLAR_HOME``.

``python -m benchmarks.progress_bench [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import report

REPO = Path(__file__).resolve().parents[1]
RUNS = 3
FIRST_BAR_MS = 1000.0
ARXIV_ID = "arXiv:2312.07559"
ARXIV_ROUTES = (("s2", "/graph/v1/paper/ARXIV:2312.07559", "upstream/semantic_scholar/paper_by_arxiv_doi.json"),
                ("arxiv", "/pdf/2312.07559", "pdfs/arxiv_2304.02623v1_beyond_summarization.pdf"))
QUERY = "lysyl oxidase collagen cross-linking"


def _env(fake_base: str, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLAR_")}
    env.update(PYTHONPATH=os.pathsep.join([str(REPO / "shared"), str(REPO)]), SCHOLAR_HOME=str(home),
               SCHOLAR_UPSTREAM_PROXY_BASE=fake_base, SCHOLAR_PACE_SCALE="0", SCHOLAR_PROFILE="all",
               SCHOLAR_SEARCH_BUDGET_SCALE="20",  # a loaded machine: as the suites give the fake upstream
               SCHOLAR_BACKEND="local")
    return env


def stdio_call(env: dict[str, str], tool: str, arguments: dict) -> tuple[float, float]:
    """(ms to the first progress message, ms to the answer) of one tools/call over a fresh ``scholar mcp``."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "scholar.local", "mcp"], env=env)
    first: list[float] = []

    async def session() -> tuple[float, float]:
        async with Client(params) as client:
            await client.call_tool("get_task_result", {"task_id": "warm-up-00"})  # the backend opened first
            began = time.perf_counter()

            async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                if not first:
                    first.append((time.perf_counter() - began) * 1000)

            await client.call_tool(tool, arguments, progress_callback=on_progress)
            done = (time.perf_counter() - began) * 1000
            return (first[0] if first else float("nan")), done

    return anyio.run(session)


def cli_call(env: dict[str, str], *args: str) -> tuple[float, float]:
    """(ms from spawn to the first stderr line, ms to exit) of ``scholar ARGS``."""
    began = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "scholar.local", *args], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    first = (time.perf_counter() - began) * 1000 if line else float("nan")
    process.communicate()
    return first, (time.perf_counter() - began) * 1000


def main(fixtures: Path, runs: int = RUNS) -> None:
    from tests.fakes.upstream import FakeUpstream

    figures: dict[str, list[float]] = {}
    with FakeUpstream(fixtures) as fake:
        for source, path, fixture in ARXIV_ROUTES:
            fake.add_route("GET", source, path, body=fixtures / fixture)
        for _ in range(runs):
            with tempfile.TemporaryDirectory(prefix="scholar-bench-") as folder:
                env = _env(fake.base_url, Path(folder))
                for name, (first, done) in (
                        ("stdio search", stdio_call(env, "search", {"query": QUERY, "limit": 5})),
                        ("stdio download_paper", stdio_call(env, "download_paper", {"identifier": ARXIV_ID}))):
                    figures.setdefault(f"{name}: first progress", []).append(first)
                    figures.setdefault(f"{name}: answer", []).append(done)
            with tempfile.TemporaryDirectory(prefix="scholar-bench-") as folder:
                first, done = cli_call(_env(fake.base_url, Path(folder)), "download-paper", ARXIV_ID, "--json")
                figures.setdefault("cli download-paper: first stderr line (from spawn)", []).append(first)
                figures.setdefault("cli download-paper: exit (from spawn)", []).append(done)
    for name, values in figures.items():
        measured = [v for v in values if v == v]  # NaN: no progress message came at all
        if len(measured) < len(values):
            print(f"{name}: no progress message in {len(values) - len(measured)} of {len(values)} runs")
        if measured:
            report(name, measured, FIRST_BAR_MS if name.startswith("stdio") and "first" in name else None)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    main(Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures")), runs=args.runs)
