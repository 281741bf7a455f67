"""Every test here runs on both backends: ``aws`` is the contract fixture (tests.store.backends)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.store import backends


@pytest.fixture(params=backends.BACKENDS)
def aws(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """The stores' resources on the backend of this run (overrides the conftest's moto-only ``aws``)."""
    yield from backends.resources(request, tmp_path)


@pytest.fixture
def library_table(request: pytest.FixtureRequest, aws: Any) -> str:
    """The LibraryTable on the backend of this run (overrides the conftest's moto-only one); its name."""
    return backends.library_table(request, aws)


@pytest.fixture
def auth_table(request: pytest.FixtureRequest, aws: Any, env: Any) -> str:
    """The AuthTable (AuthMode=OAuth) on the backend of this run, configured as SCHOLAR_AUTH_TABLE; its name."""
    name = backends.auth_table(aws)
    env.set(SCHOLAR_AUTH_TABLE=name)
    return name
