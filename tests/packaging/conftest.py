"""The package as a new user gets it (issue 36): one wheel for the whole run, the fake upstream, and a folder that is
not the checkout. The wheel is shared by the package's modules (and the xdist workers running them) under a lock."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir
from tests.packaging.install import ARXIV_ROUTES, REPO, build_wheel_once


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout's wheel, built once per run (the workers of one run share pytest's base temp's parent)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return build_wheel_once(shared / "packaging-wheel")


@pytest.fixture(scope="session")
def fake_upstream() -> Iterator[FakeUpstream]:
    """The recorded upstreams, plus the arXiv paper whose PDF download_paper fetches."""
    with FakeUpstream(fixtures_dir()) as fake:
        for source, path, fixture in ARXIV_ROUTES:
            fake.add_route("GET", source, path, body=fixtures_dir() / fixture)
        yield fake


@pytest.fixture(scope="session")
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working folder that is not the checkout, nor inside it."""
    folder = tmp_path_factory.mktemp("elsewhere")
    assert REPO not in folder.resolve().parents and folder.resolve() != REPO
    return folder
