"""From where a person on one machine stands: ``from scholar import Scholar`` on the local backend, read_paper of a
paper with no open copy, the pipeline run in-process by the state machine's interpreter (so the task's principal
travels through statemachines/pdf_pipeline.asl.json to the steps), the sources played by the fake upstream and the
web by the fake EZproxy."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholar.core.config import get_settings
from scholar.web import fetch
from tests.connectors.conftest import MemoryKeyring
from tests.fakes.library_proxy import NAME, FakeLibraryProxy, public_resolver
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.servers import fake_upstream_fixture
from tests.proxy.conftest import pdf_bytes

fake_upstream = fake_upstream_fixture(scope="module")


@pytest.fixture
def machine(fake_upstream: FakeUpstream, tmp_path, memory_keyring: MemoryKeyring) -> Iterator[FakeLibraryProxy]:
    ezproxy = FakeLibraryProxy(pdf=pdf_bytes())
    env = {"SCHOLAR_BACKEND": "local", "SCHOLAR_HOME": str(tmp_path), "SCHOLAR_PACE_SCALE": "0",
           "SCHOLAR_UPSTREAM_PROXY_BASE": fake_upstream.base_url, "SCHOLAR_RETRY_BUDGET_S": "0",
           "SCHOLAR_LIBRARY_PROXY": NAME, "SCHOLAR_LIBRARY_PROXY_USER": "alice",
           "SCHOLAR_LIBRARY_PROXY_PASSWORD": "correct horse"}
    patch = pytest.MonkeyPatch()
    for name, value in env.items():
        patch.setenv(name, value)
    get_settings.cache_clear()
    fetch.set_web_access(fetch.WebAccess(resolver=public_resolver, transport=ezproxy.transport))
    try:
        yield ezproxy
    finally:
        fetch.set_web_access(None)
        patch.undo()
        get_settings.cache_clear()


def test_read_paper_through_the_python_api_comes_through_the_library_proxy(machine: FakeLibraryProxy) -> None:
    from scholar import Scholar

    with Scholar() as api:
        first = api.read_paper(identifier="10.5555/licensed.1")
        again = api.read_paper(identifier="10.5555/licensed.1")
    assert first["pdf_source"] == "library_proxy" and first["pdf_path"].startswith("mine/") and first["markdown"]
    assert again["cached"] is True and again["markdown"] == first["markdown"]
    assert machine.sign_ins == 1
