"""Cold import of every Lambda function, and where the time goes (issue 14, items 1–2).

The code is laid out and compiled as ``make build`` ships it: a copy of ``shared/`` and ``functions/``
under ``.bench/build`` with .pyc from ``compileall --invalidation-mode unchecked-hash`` (a copy, because
unchecked .pyc in the working tree would hide later edits). Each figure is a fresh interpreter importing
``functions.<name>.app``; the breakdown is one ``python -X importtime`` run, self time summed per
top-level package. New functions (``functions/*/app.py``) are picked up without a change here.

``python -m benchmarks.imports_bench [--runs N] [--top K] [name ...]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from benchmarks.common import report

REPO = Path(__file__).resolve().parents[1]
BUILD = REPO / ".bench" / "build"
BARS_MS = {"gateway": 800.0}
FAMILY_BAR_MS = 300.0
RUNS = 20
TOP = 8


def functions() -> list[str]:
    return sorted(p.parent.name for p in (REPO / "functions").glob("*/app.py"))


def build() -> Path:
    """Copy the code as it ships and compile it with unchecked-hash .pyc; returns the folder for PYTHONPATH."""
    shutil.rmtree(BUILD, ignore_errors=True)
    for part in ("shared", "functions"):
        shutil.copytree(REPO / part, BUILD / part, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash", str(BUILD)], check=True
    )
    return BUILD


def _env(build_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCHOLAR_", "LAMBDA_", "AWS_LAMBDA_"))}
    env["PYTHONPATH"] = f"{build_dir / 'shared'}{os.pathsep}{build_dir}"
    env["PYDANTIC_DISABLE_PLUGINS"] = "__all__"  # as template.yaml sets it for every function
    return env


def cold_import_times(module: str, build_dir: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) of importing ``module`` in a fresh interpreter.

    CPU time is the steadier figure on a shared machine: waiting for a core inflates wall time only.
    """
    code = (f"import time;w=time.perf_counter();c=time.process_time();import {module};"
            "print((time.perf_counter()-w)*1000,(time.process_time()-c)*1000)")
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=build_dir, env=_env(build_dir), check=True, capture_output=True, text=True
    )
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def cold_import_ms(module: str, build_dir: Path) -> float:
    return cold_import_times(module, build_dir)[0]


def breakdown(module: str, build_dir: Path) -> Counter[str]:
    """Self import time (ms) per top-level package, from one ``-X importtime`` run."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        cwd=build_dir, env=_env(build_dir), check=True, capture_output=True, text=True,
    )
    totals: Counter[str] = Counter()
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _cumulative, name = line.removeprefix("import time:").split("|")
        totals[name.strip().split(".")[0]] += int(self_us) / 1000
    return totals


# What any family function must import before a line of ours: pydantic with its first model classes (the first
# class creation loads pydantic's schema machinery), asyncio with ssl (httpx and the process loop), Powertools
# Logger and Metrics (DESIGN §2). Timed as the functions are, in the same run: family minus floor is our share.
FLOOR_MODULE = "benchmarks_floor"
FLOOR_CODE = """\
import asyncio, ssl
from aws_lambda_powertools import Logger, Metrics
from pydantic import BaseModel, Field
Logger(service="floor"); Metrics(namespace="floor")
class Item(BaseModel):
    a: int = Field(ge=0)
    b: str | None = None
class Page(BaseModel):
    items: list[Item] = []
"""


def measure_floor(build_dir: Path, runs: int) -> float:
    (build_dir / f"{FLOOR_MODULE}.py").write_text(FLOOR_CODE)
    times = [cold_import_times(FLOOR_MODULE, build_dir) for _ in range(runs)]
    report("floor: pydantic + 2 models, asyncio + ssl, Powertools Logger + Metrics", [w for w, _ in times])
    report("  CPU time of the floor", [cpu for _, cpu in times])
    return sorted(cpu for _, cpu in times)[len(times) // 2]


def measure(name: str, build_dir: Path, runs: int, top: int) -> None:
    module = f"functions.{name}.app"
    times = [cold_import_times(module, build_dir) for _ in range(runs)]
    report(f"cold import {module}", [wall for wall, _ in times], BARS_MS.get(name, FAMILY_BAR_MS))
    report("  CPU time of that import", [cpu for _, cpu in times], BARS_MS.get(name, FAMILY_BAR_MS))
    totals = breakdown(module, build_dir)
    parts = ", ".join(f"{pkg} {ms:.0f}" for pkg, ms in totals.most_common(top))
    print(f"  importtime {sum(totals.values()):.0f} ms: {parts}", flush=True)


def main(fixtures: Path | None = None, runs: int = RUNS, top: int = TOP, names: list[str] | None = None) -> None:
    del fixtures  # imports need no recorded data
    print(f"== cold imports (fresh interpreter, unchecked-hash .pyc, {runs} runs; load {os.getloadavg()[0]:.2f}) ==",
          flush=True)
    build_dir = build()
    measure_floor(build_dir, runs)
    for name in names or functions():
        measure(name, build_dir, runs, top)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--top", type=int, default=TOP)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    main(runs=args.runs, top=args.top, names=args.names)
