"""The library proxy's fixtures: the fake EZproxy serving a real recorded PDF."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache

import pytest

from scholar.web import fetch
from tests.connectors.conftest import MemoryKeyring
from tests.fakes.library_proxy import NAME, FakeLibraryProxy, public_resolver
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env
from tests.fixtures_dir import fixtures_dir

PDF_NAME = "arxiv_2305.03393v1_page9_only.pdf"  # one page: the licensed paper's "publisher version"


@cache
def pdf_bytes() -> bytes:
    return (fixtures_dir() / "pdfs" / PDF_NAME).read_bytes()


@pytest.fixture
def ezproxy() -> FakeLibraryProxy:
    return FakeLibraryProxy(pdf=pdf_bytes())


@pytest.fixture
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    """This machine's keyring, in memory (no test reads or writes the real one)."""
    import keyring  # the local extra's package, only where a test needs it

    backend = MemoryKeyring()
    for name in ("get_password", "set_password", "delete_password"):
        monkeypatch.setattr(keyring, name, getattr(backend, name))
    return backend


@pytest.fixture
def web(ezproxy: FakeLibraryProxy) -> Iterator[FakeLibraryProxy]:
    """Every host outside our sources answered by the fake proxy (the SSRF guard still vets each hop)."""
    fetch.set_web_access(fetch.WebAccess(resolver=public_resolver, transport=ezproxy.transport))
    yield ezproxy
    fetch.set_web_access(None)


MACHINE_DEFINITION = {"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}


@pytest.fixture
def proxied(aws: AwsResources, env: Env, web: FakeLibraryProxy, memory_keyring: MemoryKeyring) -> FakeLibraryProxy:
    """This machine's proxy and sign-in set (the password in the environment), and a PDF pipeline to queue on."""
    env(SCHOLAR_LIBRARY_PROXY=NAME, SCHOLAR_LIBRARY_PROXY_USER="alice", SCHOLAR_LIBRARY_PROXY_PASSWORD="correct horse")
    arn = aws.client("stepfunctions").create_state_machine(
        name="pdf-pipeline", definition=json.dumps(MACHINE_DEFINITION),
        roleArn="arn:aws:iam::123456789012:role/x")["stateMachineArn"]
    env(SCHOLAR_PDF_STATE_MACHINE_ARN=arn)
    return web
