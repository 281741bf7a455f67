"""Fixtures of this machine's entry points: a backend (in this process and for child processes) before the fake
upstream.

``BACKENDS`` is the one switch: the entry points default to the local store (``scholar.local.machine``); until that
lands on this branch the suite runs them on the embedded AWS stand-in (``SCHOLAR_BACKEND=aws``). At the merge, make
it ``("local",)`` (or both).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from scholar.core.config import get_settings
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.servers import fake_upstream_fixture

BACKENDS = ("local",)

fake_upstream = fake_upstream_fixture(scope="session")


@dataclass(frozen=True)
class Machine:
    """One user's machine: the settings every entry point reads, for this process and for the ones it starts."""

    backend: str
    home: Path
    env: dict[str, str]

    def child_env(self) -> dict[str, str]:
        """The environment of a ``scholar`` child process: this one's and the machine's settings, with nothing on
        ``PYTHONPATH`` (the package comes from the environment's install, as a user's does)."""
        return {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, **self.env}

    def command(self, *args: str) -> list[str]:
        """``scholar ARGS`` as this checkout runs it (``python -m scholar.local``)."""
        return [sys.executable, "-m", "scholar.local", *args]


@pytest.fixture(scope="module", params=BACKENDS)
def machine(request: pytest.FixtureRequest, fake_upstream: FakeUpstream,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Machine]:
    """The settings of a machine whose sources are the fake upstream, pacing off, its data in a fresh folder."""
    home = tmp_path_factory.mktemp("scholar-home")
    env = {"SCHOLAR_BACKEND": request.param, "SCHOLAR_HOME": str(home),
           "SCHOLAR_UPSTREAM_PROXY_BASE": fake_upstream.base_url, "SCHOLAR_PACE_SCALE": "0",
           "SCHOLAR_RETRY_BUDGET_S": "1", "SCHOLAR_PROFILE": "all", "SCHOLAR_INLINE_WAIT_S": "0"}
    patch = pytest.MonkeyPatch()
    for name, value in env.items():
        patch.setenv(name, value)
    get_settings.cache_clear()
    try:
        yield Machine(request.param, home, env)
    finally:
        patch.undo()
        get_settings.cache_clear()
