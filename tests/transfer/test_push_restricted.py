"""``scholar library push`` to a restricted deployment: read-only mode (download_paper hidden; the library tools
stay, they are the caller's own data) and a library limit reached in the middle of a batch.

The deployment is the local stack behind the key guard (tests.transfer.deployment) with SCHOLAR_READ_ONLY=true and
SCHOLAR_LIBRARY_MAX_ITEMS=MAX_ITEMS; each test is a caller of its own there (a key of its own, a library of its own).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from scholar.local.cli.output import EXIT_CODES, EXIT_OK
from scholar.store.library.rows import TX_ITEMS
from tests.fakes.upstream import FakeUpstream
from tests.transfer.deployment import (
    OWN,
    exported,
    items_of,
    pdfs_held,
    push,
    reading_pdfs,
    remote,
    running_deployment,
)

pytestmark = pytest.mark.e2e

MAX_ITEMS = TX_ITEMS + 5  # a library limit the second write transaction of a batch passes


@pytest.fixture(scope="module")
def deployment(fake_upstream: FakeUpstream, pnas_pdf: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    settings = {"SCHOLAR_READ_ONLY": "true", "SCHOLAR_LIBRARY_MAX_ITEMS": str(MAX_ITEMS)}
    with running_deployment(fake_upstream, tmp_path_factory.mktemp("restricted-keys"), settings) as server:
        yield server


def test_a_push_with_kept_pdfs_to_a_read_only_deployment_stops_before_writing_and_one_without_them_succeeds(
        deployment, new_machine):
    # Given a read-only deployment (download_paper hidden, library tools offered) and a machine with a kept PDF
    key = deployment.new_key()
    laptop = new_machine()
    laptop.answer("seed")
    fields = items_of(laptop.answer("export")["content"], without=OWN)

    # When it is pushed with its PDFs, Then it stops with the typed refusal and nothing is written there
    done = laptop.run("", "library", "push", deployment.url, "--api-key", key, scholar=True)
    assert done.returncode == EXIT_CODES["forbidden"], done.stderr[-2000:]
    assert "error [forbidden]" in done.stderr and "read-only" in done.stderr and "--no-pdfs" in done.stderr
    assert done.stdout == ""
    listed, collections = remote(deployment, ("library_list", {}), ("library_collections", {"action": "list"}),
                                 key=key)
    assert listed["items"] == [] and collections.get("collections", []) == []

    # When it is pushed with --no-pdfs, Then every item goes, every field, but no PDF record or Markdown reference:
    # the deployment holds no file of them (the report names the PDF left behind)
    status, report = push(laptop, deployment, "--no-pdfs", key=key)
    assert status == EXIT_OK, report
    there, *reads = remote(deployment, ("library_export", {"format": "jsonl"}), *reading_pdfs(fields), key=key)
    assert items_of(there["content"], without=OWN) == fields
    assert pdfs_held(there["content"], fields, reads) == {item_id: ([], None) for item_id in fields}
    assert all(item["md_path"] is None for item in items_of(there["content"]).values())
    assert report["counts"]["created"] == 2 and report["counts"]["failed"] == 0
    assert [item["pdf"] for item in report["items"] if "pdf" in item] == [{"status": "skipped", "versions": 1}]


def test_a_library_limit_reached_midway_through_a_batch_reports_what_was_written_as_written(deployment, new_machine):
    # Given a deployment whose libraries hold at most MAX_ITEMS, and a machine with more, all sent in one batch
    # (the deployment writes a batch in transactions of TX_ITEMS: the first fits, the second does not)
    key = deployment.new_key()
    laptop = new_machine()
    ids = laptop.answer("seed-corpus", str(TX_ITEMS + 10))["ids"]

    # When it is pushed
    status, report = push(laptop, deployment, key=key)

    # Then the report says what the deployment holds: the first transaction's items created, the rest failed
    there = set(items_of(exported(deployment, key)))
    assert len(there) == TX_ITEMS and there < set(ids)
    outcomes = {item["item_id"]: item["outcome"] for item in report["items"]}
    assert {i for i, outcome in outcomes.items() if outcome == "created"} == there
    failed = [item for item in report["items"] if item["outcome"] == "failed"]
    assert len(failed) == 10 and {item["error"]["code"] for item in failed} == {"too_large"}
    assert status == EXIT_CODES["too_large"]
