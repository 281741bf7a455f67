# tests/fixtures_dir.py
"""Where the recorded upstream responses live (DESIGN §10); tests skip without them."""
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
def fixtures_dir() -> Path:
    path = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
    if not path.is_dir():
        pytest.skip(f"recorded upstream fixtures not found at {path} (set SCHOLAR_FIXTURES_DIR)")
    return path
