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


def read_fixture(relpath: str) -> bytes:
    """The bytes of a recorded response, e.g. ``upstream/semantic_scholar/paper_not_found_404.json``."""
    return (fixtures_dir() / relpath).read_bytes()
