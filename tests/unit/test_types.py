"""The product type-checks: mypy as pyproject.toml configures it (``[tool.mypy]``: shared/scholar, the pydantic
plugin) reports no error. ``make lint`` runs the same check.

mypy runs as a subprocess of this interpreter (the venv that holds the pinned mypy and stubs of the ``dev`` extra),
from the repository root, with its cache under ``.cache/`` (ignored by git): the first run in a fresh clone checks
every module (about 25-30 s of CPU), later runs only what changed (about 1-4 s).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "mypy"


def test_mypy_finds_no_error_in_the_product() -> None:
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(CACHE)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )

    assert checked.returncode == 0, f"mypy (make lint):\n{checked.stdout}{checked.stderr}"
