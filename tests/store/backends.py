"""The contract suite's two backends: every store test runs on moto (the AWS layer) and on the local one.

``contract_aws`` is the ``aws`` fixture of tests/store (and of the library store's tests), parametrized: ``moto``
is the conftest's moto-backed resources; ``local`` opens ``scholar.local.machine.local_backend`` on a fresh folder
and hands the tests the local layer's own clients under the same names (``aws.dynamodb``, ``aws.s3``), so a test
that reads a raw item reads it from SQLite there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scholar.local.machine import LocalMachine, local_backend
from scholar.store.local import LocalBackend
from tests.aws_tables import create_library_table

BACKENDS = ("moto", "local")
MOTO_AUTH_TABLE = "scholar-test-auth"


@dataclass(frozen=True)
class LocalResources:
    """The local backend under the names the moto ``AwsResources`` gives (tables, bucket, clients)."""

    machine: LocalMachine

    @property
    def cache_table(self) -> str:
        return LocalBackend.resource_names()["cache_table"]

    @property
    def task_table(self) -> str:
        return LocalBackend.resource_names()["task_table"]

    @property
    def bucket(self) -> str:
        return LocalBackend.resource_names()["artifact_bucket"]

    @property
    def dynamodb(self) -> Any:
        return self.machine.backend.dynamodb

    @property
    def s3(self) -> Any:
        return self.machine.backend.s3

    @property
    def home(self) -> Path:
        return self.machine.home

    def client(self, service: str) -> Any:
        return self.machine.backend.client(service)


def resources(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """The stores' resources on one backend (``moto`` or ``local``; ``backend_of`` says which)."""
    if request.param == "moto":
        yield request.getfixturevalue("aws")  # the conftest's moto resources (the fixture the caller overrides)
        return
    with local_backend(tmp_path / "home") as machine:
        yield LocalResources(machine)


def library_table(request: pytest.FixtureRequest, aws: Any) -> str:
    """The LibraryTable on the backend ``aws`` runs on; returns its name."""
    if isinstance(aws, LocalResources):
        return LocalBackend.resource_names()["library_table"]
    return request.getfixturevalue("library_table")


def auth_table(aws: Any) -> str:
    """The AuthTable on the backend ``aws`` runs on (created in moto: ``pk``/``sk`` as template.yaml's); its name."""
    if isinstance(aws, LocalResources):
        return LocalBackend.resource_names()["auth_table"]
    create_library_table(aws.dynamodb, MOTO_AUTH_TABLE)  # the same key schema as the AuthTable: pk (S), sk (S)
    return MOTO_AUTH_TABLE


__all__ = ["BACKENDS", "LocalResources", "auth_table", "backend_of", "library_table", "resources"]


def backend_of(aws: Any) -> str:
    """``"local"`` or ``"moto"``: which backend a test's ``aws`` resources are."""
    return "local" if isinstance(aws, LocalResources) else "moto"
