"""``make bench``: run every benchmark module (``benchmarks/*_bench.py``) and print its figures.

``python -m benchmarks [name ...]`` runs only the named ones (e.g. ``gateway``).
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _fixtures() -> Path | None:
    path = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", HERE.parents[1] / "shared" / "fixtures"))
    return path if path.is_dir() else None


def main(argv: list[str]) -> int:
    fixtures = _fixtures()
    if fixtures is None:
        print("recorded upstream fixtures not found (set SCHOLAR_FIXTURES_DIR); nothing to measure", file=sys.stderr)
        return 1
    names = argv or sorted(p.stem.removesuffix("_bench") for p in HERE.glob("*_bench.py"))
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}_bench")
        module.main(fixtures)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
