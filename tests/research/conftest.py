"""Fixtures of the research suites that run the local server: one server per module, so state stays in it.

tests/e2e shares one server across its package; a module here starts its own in front of its own fake upstream,
so the artifacts and library rows one module leaves behind never answer another's calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from scholar.fulltext import fetch
from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir
from tests.local_server import running_local_server
from tests.pdf.test_pipeline_machine import web_access


@pytest.fixture(scope="module")
def fake_upstream() -> Iterator[FakeUpstream]:
    with FakeUpstream(fixtures_dir()) as fake:
        yield fake


@pytest.fixture(scope="module")
def local_server(fake_upstream: FakeUpstream) -> Iterator[Any]:
    with running_local_server(fake_upstream, retry_budget_s="1", contact_email="research-e2e@example.org") as server:
        yield server


@pytest.fixture
def web(fake_upstream: FakeUpstream) -> Iterator[FakeUpstream]:
    """PDF hosts that are not our sources reach the fake upstream (still vetted by the SSRF guard)."""
    fetch.set_web_access(web_access(fake_upstream))
    yield fake_upstream
    fetch.set_web_access(None)
    fake_upstream.reset()
