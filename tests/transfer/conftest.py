"""Library transfers between a machine (a child process on the local backend) and a deployment (the local stack,
moto + template.yaml, in this process), both in front of the fake upstream (recorded responses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.upstream import FakeUpstream
from tests.fixtures.servers import REPO, fake_upstream_fixture
from tests.fixtures_dir import fixtures_dir
from tests.pdf.test_pipeline_machine import PNAS_PDF_PATH

fake_upstream = fake_upstream_fixture(scope="package")
TIMEOUT_S = 300
# A deployment's own settings, which the running stack exports to this process's environment: never the machine's.
DEPLOYMENT_ONLY = ("SCHOLAR_READ_ONLY", "SCHOLAR_LIBRARY_MAX_ITEMS", "SCHOLAR_LIBRARY_MAX_BYTES")


@pytest.fixture(scope="package")
def pnas_pdf(fake_upstream: FakeUpstream) -> None:
    """The PNAS article's publisher location serves a real PDF (the one the download_paper e2e keeps)."""
    fake_upstream.add_route("GET", "web", PNAS_PDF_PATH, body=fixtures_dir() / "pdfs/arxiv_2305.03393v1_page9_only.pdf",
                            content_type="application/pdf")


@dataclass(frozen=True)
class Machine:
    """One user's machine: its data folder; each action runs in a child process (tests.transfer.child)."""

    home: Path
    fake: FakeUpstream

    def env(self) -> dict[str, str]:
        inherited = {name: value for name, value in os.environ.items() if name not in DEPLOYMENT_ONLY}
        return {**inherited, "PYTHONPATH": os.pathsep.join([str(REPO / "shared"), str(REPO)]),
                "SCHOLAR_BACKEND": "local", "SCHOLAR_HOME": str(self.home), "SCHOLAR_PROFILE": "all",
                "SCHOLAR_UPSTREAM_PROXY_BASE": self.fake.base_url, "SCHOLAR_PACE_SCALE": "0",
                "SCHOLAR_RETRY_BUDGET_S": "1", "SCHOLAR_TEST_ALLOW_HOSTS": self.fake.base_url.removeprefix("http://")}

    def run(self, action: str, *args: str, scholar: bool = False) -> subprocess.CompletedProcess[str]:
        """The child's run; ``scholar``: the real ``python -m scholar.local ARGS`` instead of the child script."""
        command = ([sys.executable, "-m", "scholar.local", *args] if scholar else
                   [sys.executable, "-m", "tests.transfer.child", self.fake.base_url, action, *args])
        return subprocess.run(command, env=self.env(), capture_output=True, text=True, timeout=TIMEOUT_S,
                              check=False, cwd=REPO)

    def answer(self, action: str, *args: str) -> Any:
        done = self.run(action, *args)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def new_machine(fake_upstream: FakeUpstream, tmp_path: Path) -> Iterator[Any]:
    """Machines with fresh data folders."""
    count = iter(range(100))
    yield lambda: Machine(tmp_path / f"machine-{next(count)}", fake_upstream)
