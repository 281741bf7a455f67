"""The connectors' fixtures: moto tables (library, connections), a KMS key, the fake Zotero and the fake Notion."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr
from starlette.testclient import TestClient

from scholar.gateway.auth.app import create_auth_app
from scholar.sources import http, notion, zotero
from scholar.sources.zotero import ZoteroClient, ZoteroLibrary
from scholar.store.connections import ConnectionStore
from tests.aws_tables import create_library_table
from tests.conftest import UPSTREAM_BASE
from tests.fakes.notion import DATABASE_ID, TOKEN, FakeNotion
from tests.fakes.zotero import PUBLIC_LIBRARY, FakeZotero
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env

CONNECTIONS_TABLE = "scholar-test-connections"
PUBLIC = "https://scholar.example.org"


@pytest.fixture
def connections_table(aws: AwsResources, library_table: str, env: Env) -> str:
    """The ConnectionsTable (pk/sk, like the LibraryTable) and a KMS key, configured."""
    create_library_table(aws.dynamodb, CONNECTIONS_TABLE)
    key_id = aws.client("kms").create_key(Description="connector keys")["KeyMetadata"]["KeyId"]
    env.set(SCHOLAR_CONNECTIONS_TABLE=CONNECTIONS_TABLE, SCHOLAR_CONNECTIONS_KEY=key_id)
    return CONNECTIONS_TABLE


@pytest.fixture
def page(connections_table: str, env: Env) -> Iterator[TestClient]:
    """The authorization server (its connect pages) of a deployment at ``PUBLIC``, with connections."""
    env.set(SCHOLAR_PUBLIC_URL=PUBLIC)
    with TestClient(create_auth_app(), base_url=PUBLIC) as client:
        yield client


def _recorded_waits(monkeypatch: pytest.MonkeyPatch, client_module: Any) -> list[float]:
    seen: list[float] = []

    async def record(seconds: float) -> None:
        seen.append(seconds)

    monkeypatch.setattr(client_module, "_sleep", record)
    return seen


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits the Zotero client asked for (Retry-After, Backoff), recorded instead of slept."""
    return _recorded_waits(monkeypatch, zotero)


@pytest.fixture
def notion_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits the Notion client asked for (Retry-After), recorded instead of slept."""
    return _recorded_waits(monkeypatch, notion)


@pytest.fixture
def notion_fake(env: Env, notion_waits: list[float]) -> Iterator[FakeNotion]:
    """The fake Notion behind the proxy base, and this machine's token and database set to reach it."""
    env.set(SCHOLAR_UPSTREAM_PROXY_BASE=UPSTREAM_BASE, SCHOLAR_NOTION_TOKEN=TOKEN, SCHOLAR_NOTION_DATABASE=DATABASE_ID)
    service = FakeNotion()
    service.install()
    yield service
    http.set_transport_factory(None)


@pytest.fixture
def fake(env: Env, waits: list[float]) -> Iterator[FakeZotero]:
    """The fake Zotero behind the proxy base (no socket: the http layer's transport factory)."""
    env.set(SCHOLAR_UPSTREAM_PROXY_BASE=UPSTREAM_BASE)
    service = FakeZotero()
    service.install()
    yield service
    http.set_transport_factory(None)


@pytest.fixture
def client(fake: FakeZotero) -> ZoteroClient:
    return ZoteroClient(ZoteroLibrary("zotero", PUBLIC_LIBRARY, SecretStr(fake.api_key)))


@pytest.fixture
def store(connections_table: str) -> ConnectionStore:
    return ConnectionStore("alice")


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class MemoryKeyring:
    """An in-memory OS keyring (keyring's backend interface), so no test reads the machine's real one."""

    priority = 1

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


@pytest.fixture(autouse=True)
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    import keyring  # the local extra's package, only where a test needs it

    backend = MemoryKeyring()
    monkeypatch.setattr(keyring, "get_password", backend.get_password)
    monkeypatch.setattr(keyring, "set_password", backend.set_password)
    return backend
