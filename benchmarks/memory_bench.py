"""Peak RSS per function for a heavy tool: what justifies each MemorySize in template.yaml (issue 14, item 7).

Each case runs in a fresh interpreter. ``footprint`` is the function as a warm environment holds it
(``functions.<name>.app``, its handlers module and its boto3 clients). The tool call itself runs
inside the in-process harness (moto, the fake upstream on the recorded responses), whose own memory is
not the function's: so the figure is footprint + what the call added to the harness's peak
(``ru_maxrss`` after − before). The services/pipeline case converts the largest recorded PDF with the built-in
converter (pdfium's C heap included). standards/standards_sync are sized by their catalogue (see
standards_bench: 150 MB on disk, built in memory) and are not re-measured here.

``python -m benchmarks.memory_bench [name ...]``
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MB = 1024  # ru_maxrss is in KiB on Linux

# function -> (family, tool, arguments): a heavy call each family can make against the recorded responses.
CASES: dict[str, tuple[str, str, dict]] = {
    "papers": ("papers", "get_paper", {"identifier": "10.1073/pnas.1414271111"}),
    "arxiv": ("arxiv", "arxiv_get_papers", {"paper_ids": ["0808.05394", "1707.08567"]}),
    "books": ("books", "search_books", {"title": "lord of the rings", "author": "tolkien", "limit": 3}),
    "tasks": ("tasks", "list_tasks", {}),
}

_FOOTPRINT = """
import json, resource, sys
import importlib
importlib.import_module(f"functions.{sys.argv[1]}.app")
if sys.argv[2]:
    from scholar.runtime.family import handlers
    from scholar.store import aws
    handlers(sys.argv[2])
    aws.dynamodb(), aws.s3()  # every call reads the cache: boto3 and its two clients are resident
else:
    from scholar.gateway.mcp.lambda_app import prime
    prime()
print(json.dumps({"rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def _run(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'shared'}{os.pathsep}{REPO}", "PYDANTIC_DISABLE_PLUGINS": "__all__"}
    env.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, env=env, check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def footprint_mb(function: str, family: str) -> float:
    return _run(_FOOTPRINT, function, family)["rss_kb"] / MB


def call_delta_mb(function: str) -> float:
    """Run in a child: the harness, then one call; prints the growth of the peak RSS the call caused."""
    return _run(f"from benchmarks.memory_bench import _child; _child({function!r})")["delta_kb"] / MB


def _child(function: str) -> None:
    import importlib

    from benchmarks.common import in_process_stack
    from scholar.runtime.context import LocalContext
    from scholar.runtime.family import handlers

    family, tool, arguments = CASES[function]
    fixtures = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
    with in_process_stack(fixtures):
        app = importlib.import_module(f"functions.{function}.app")
        handlers(family)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        outcome = app.lambda_handler({"tool": tool, "arguments": arguments, "principal": "bench", "request_id": "m"},
                                     LocalContext(function_name=f"scholar-{function}"))
        assert outcome["ok"], outcome
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"delta_kb": after - before}), flush=True)


def _line(name: str, value: str) -> None:
    print(f"{name:<58} {value}", flush=True)


def main(fixtures: Path | None = None, names: list[str] | None = None) -> None:
    del fixtures  # the children find them through SCHOLAR_FIXTURES_DIR or the default
    from benchmarks.pdf_bench import measure_memory

    print("== peak RSS per function (fresh interpreter each) ==", flush=True)
    wanted = names or ["gateway", *CASES, "pdf"]
    if "gateway" in wanted:
        _line("gateway: import + prime (app, session manager, schemas)", f"{footprint_mb('gateway', ''):7.1f} MB")
    for function in (n for n in wanted if n in CASES):
        base = footprint_mb(function, CASES[function][0])
        delta = call_delta_mb(function)
        _line(
            f"{function}: footprint + {CASES[function][1]}",
            f"{base:7.1f} MB + {delta:5.1f} MB = {base + delta:7.1f} MB",
        )
    if "pdf" in wanted:
        pdfs = sorted(
            (REPO.parent / "shared" / "fixtures" / "pdfs").glob("arxiv_*.pdf"), key=lambda p: p.stat().st_size
        )
        base = footprint_mb("pipeline", "pdf")
        peak = measure_memory(pdfs[-1])
        delta = (peak["peak_rss_kb"] - peak["base_rss_kb"]) / MB
        _line(
            f"pipeline: footprint + convert ({peak['pages']} pages)",
            f"{base:7.1f} MB + {delta:5.1f} MB = {base + delta:7.1f} MB",
        )


if __name__ == "__main__":
    main(names=sys.argv[1:])
