"""Install weight of one machine (issue 41): ``pip install <wheel>`` into a fresh venv, its time and the venv's size.

Run: ``python -m benchmarks.install_bench [--extras aws] [--repeat N]``. The checkout's wheel is built once
(``pip wheel --no-deps``); each run makes a fresh venv without pip (``python -m venv --without-pip``), installs the
wheel into it with this Python's pip (``pip --python``, the package index and wheel cache as configured), and
reports the median install time, the venv's size on disk and the number of distributions installed. Network
and cache state matter: compare figures taken one after the other on one machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def build_wheel(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO)], check=True,
                   capture_output=True)
    return next(out.glob("*.whl"))


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def install_once(wheel: Path, extras: str, scratch: Path) -> tuple[float, float, int]:
    venv = Path(tempfile.mkdtemp(dir=scratch)) / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = f"{wheel}[{extras}]" if extras else str(wheel)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--disable-pip-version-check", target], check=True, capture_output=True)
    took = time.perf_counter() - start
    listed = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "list",
                             "--format", "freeze"], check=True, capture_output=True, text=True).stdout.split()
    return took, size_mb(venv), len(listed)


def main(argv: list[str] | Path | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extras", default="", help="extras to install with the wheel (e.g. aws)")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args([] if isinstance(argv, Path) else argv)
    with tempfile.TemporaryDirectory() as scratch:
        wheel = build_wheel(Path(scratch) / "wheel")
        runs = [install_once(wheel, args.extras, Path(scratch)) for _ in range(args.repeat)]
    label = f"pip install {wheel.name}" + (f"[{args.extras}]" if args.extras else "")
    print(f"install: {label}: median {statistics.median(r[0] for r in runs):.1f} s over {len(runs)} run(s), "
          f"venv {runs[-1][1]:.0f} MB, {runs[-1][2]} distributions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
