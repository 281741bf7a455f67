"""A push whose deployment goes away between two batches: what was written stays written (read in the deployment's
own storage), the batch that met the closed port failed ``unavailable``, the batches after it "not sent".

The deployment is the local stack behind the key guard (tests.transfer.deployment), reached with the push's own
MCP client and flow (transfer._run) in this process; its HTTP front is stopped just before the second batch is sent.
This machine's side is the smallest honest fake (tests.transfer.memory: the tools' own export and import over items
of real recorded records in memory), so the batches can be made small (BATCH_ITEMS) in this process.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from scholar.local import keys, transfer
from scholar.local.transfer import Library
from scholar.store.library.table import LibraryStore
from tests.fakes.upstream import FakeUpstream
from tests.library.corpus import MemoryLibrary, items
from tests.transfer.deployment import running_deployment, stop_serving
from tests.transfer.memory import memory_library

pytestmark = pytest.mark.e2e

BATCH = 3


@pytest.fixture(scope="module")
def deployment(fake_upstream: FakeUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with running_deployment(fake_upstream, tmp_path_factory.mktemp("interrupted-keys")) as server:
        yield server


def _going_away_before_the_second_batch(server: Any) -> Any:
    real = transfer._import
    sent: list[int] = []

    async def import_(target: Library, batch: list[Any], reports: dict[str, Any]) -> None:
        sent.append(len(batch))
        if len(sent) == 2:
            await anyio.to_thread.run_sync(stop_serving, server)
        await real(target, batch, reports)

    return import_


def test_a_deployment_gone_between_batches_keeps_what_was_written_and_the_rest_is_reported_not_sent(
        deployment, monkeypatch, tmp_path):
    # Given seven items on this side, sent three to a batch
    held = items(7)
    monkeypatch.setattr(transfer, "BATCH_ITEMS", BATCH)
    monkeypatch.setattr(transfer, "_local_library", lambda progress: memory_library(MemoryLibrary(held)))
    key = deployment.new_key()

    # When the deployment goes away before the second batch (the push's own session and flow)
    monkeypatch.setattr(transfer, "_import", _going_away_before_the_second_batch(deployment))
    run = functools.partial(transfer._run, "push", deployment.url, api_key=key, collection=None,
                            dry_run=False, pdfs=False, progress=None, browser=None, home=tmp_path)
    report = anyio.run(run).as_dict()

    # Then the first batch (the report's order is the order sent) is created, and stays written there
    assert sorted(item["item_id"] for item in report["items"]) == sorted(item.item_id for item in held)
    outcomes = [item["outcome"] for item in report["items"]]
    assert outcomes == ["created"] * BATCH + ["failed"] * (len(held) - BATCH)
    stored = LibraryStore(keys.principal_of(key)).iter_items()
    assert sorted(item.item_id for item in stored) == sorted(item["item_id"] for item in report["items"][:BATCH])
    # And the batch sent to the closed port failed unavailable, the one after it was not sent
    errors = [item["error"] for item in report["items"][BATCH:]]
    assert {error["code"] for error in errors} == {"unavailable"}
    assert [error["message"].startswith(transfer.NOT_SENT) for error in errors] == [False] * BATCH + [True]
    assert "failed midway" in report["warnings"][0]
