"""``scholar library push`` / ``pull`` end to end: a machine's library (tags, notes, collections, an empty one, a
kept PDF) pushed to a deployment by API key, every field checked there, pushed again (nothing written), then
pulled into an empty machine and checked field by field against the original; a PDF record on either side only with
its file there (read back through resources/read). The refusals run the real CLI.

The deployment is the local stack behind ``scholar serve``'s key guard (tests.transfer.deployment).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from scholar.local.cli.output import EXIT_CODES, EXIT_OK
from scholar.store.library import bounds
from tests.fakes.upstream import FakeUpstream
from tests.transfer.deployment import (
    OWN,
    exported,
    files_behind_records,
    items_of,
    pdfs_held,
    push,
    reading_pdfs,
    remote,
    running_deployment,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def deployment(fake_upstream: FakeUpstream, pnas_pdf: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with running_deployment(fake_upstream, tmp_path_factory.mktemp("deployment-keys")) as server:
        yield server


def test_a_library_goes_to_the_deployment_and_back_with_every_field_and_pdf_records_only_with_their_files(
        deployment, new_machine):
    # Given a machine whose library holds tags, notes, two collections, an empty one and a kept PDF
    laptop = new_machine()
    seeded = laptop.answer("seed")
    mine = laptop.answer("export")["content"]
    original, fields = items_of(mine), items_of(mine, without=OWN)
    (with_pdf,) = [item for item in original.values() if item["pdfs"]]
    assert [pdf["sha256"] for pdf in with_pdf["pdfs"]] == [seeded["kept"]]

    # When it is pushed by API key
    status, first = push(laptop, deployment)

    # Then every item is created there with every field, the collections too, and the PDF is queued to be kept there;
    # meanwhile a PDF record there is only one whose file the deployment holds (none until its task keeps it)
    assert status == EXIT_OK, first
    assert first["counts"] == {"created": 2, "updated": 0, "unchanged": 0, "kept_newer": 0, "failed": 0}
    assert set(first["collections_created"]) == {"reading", "tissue", "empty-shelf"}
    kept = [item["pdf"] for item in first["items"] if "pdf" in item]
    assert [pdf["status"] for pdf in kept] == ["queued"]
    there, *reads = remote(deployment, ("library_export", {"format": "jsonl"}), *reading_pdfs(original))
    assert files_behind_records(pdfs_held(there["content"], original, reads))
    done, collections, there, *reads = remote(deployment, ("wait", {"task_id": kept[0]["task_ids"][0]}),
                                              ("library_collections", {"action": "list"}),
                                              ("library_export", {"format": "jsonl"}), *reading_pdfs(original))
    assert done["status"] == "completed" and done["result"]["sha256"] == seeded["kept"]
    assert items_of(there["content"], without=OWN) == fields
    # And once kept there, the item holds the deployment's own record of the same PDF (kept seconds after this
    # machine's, by another process), its file read back there
    expected = {item_id: ([seeded["kept"]], seeded["kept"]) if item_id == with_pdf["item_id"] else ([], None)
                for item_id in original}
    assert pdfs_held(there["content"], original, reads) == expected
    (record,) = items_of(there["content"])[with_pdf["item_id"]]["pdfs"]
    assert record["kept_at"] != with_pdf["pdfs"][0]["kept_at"]
    assert {c["name"] for c in collections["collections"]} >= {"reading", "tissue", "empty-shelf"}

    # When it is pushed again, Then nothing is written or asked for: the deployment holds that PDF
    status, second = push(laptop, deployment)
    assert status == EXIT_OK
    assert second["counts"]["unchanged"] == 2 and sum(second["counts"].values()) == 2
    assert second["collections_created"] == []
    assert [item["pdf"] for item in second["items"] if "pdf" in item] == [{"status": "kept"}]

    # When an empty machine pulls, Then it holds the original library, field by field, its PDF kept again here
    desk = new_machine()
    done = desk.run("cli", "library", "pull", deployment.url, "--api-key", deployment.key, "--json")
    assert done.returncode == EXIT_OK, done.stderr[-3000:]
    pulled = json.loads(done.stdout)
    assert pulled["counts"]["created"] == 2 and pulled["counts"]["failed"] == 0
    assert [item["pdf"]["status"] for item in pulled["items"] if "pdf" in item] == ["kept"]
    here = desk.answer("export", "pdfs")
    assert items_of(here["content"], without=OWN) == fields
    assert {item_id: tuple(held) for item_id, held in here["pdfs"].items()} == expected


def test_a_dry_run_plans_and_writes_nothing(deployment, new_machine):
    laptop = new_machine()
    laptop.answer("seed-one")

    status, plan = push(laptop, deployment, "--dry-run")

    assert status == EXIT_OK and plan["dry_run"] is True
    assert [item["outcome"] for item in plan["items"]] in (["created"], ["updated"])
    (listed,) = remote(deployment, ("library_list", {"tag": "oauth"}))
    assert listed["items"] == []  # the item's tag was never written there


@pytest.mark.parametrize(("url", "key", "code"), [
    ("ftp://127.0.0.1/mcp", "k", "invalid_argument"),
    ("http://example.org/mcp", "k", "invalid_argument"),  # plain http beyond this machine
    ("http://127.0.0.1:9/mcp", "k", "unavailable"),  # nothing listens there
    (None, "sk-scholar-wrong", "forbidden"),
])
def test_a_bad_url_an_unreachable_port_and_a_wrong_key_fail_typed_before_anything_is_written(
        deployment, new_machine, url, key, code):
    laptop = new_machine()

    done = laptop.run("", "library", "push", url or deployment.url, "--api-key", key, scholar=True)

    assert done.returncode == EXIT_CODES[code], done.stderr[-2000:]
    assert f"error [{code}]" in done.stderr and done.stdout == ""


def test_a_page_that_is_not_mcp_is_named_as_such(deployment, new_machine):
    done = new_machine().run("", "library", "pull", deployment.url.removesuffix("/mcp") + "/nothing-here",
                             "--api-key", deployment.key, scholar=True)

    assert done.returncode == EXIT_CODES["invalid_argument"], done.stderr[-2000:]
    assert "not an MCP endpoint" in done.stderr




LARGE = 60  # items of real recorded records (tests.library.corpus): about 150,000 characters of jsonl


def test_a_library_too_large_to_answer_inline_is_read_by_its_download_link_both_ways_and_loses_nothing(
        deployment, new_machine):
    # Given a machine whose library's snapshot is over the inline budget of an export (about 78,000 characters)
    key = deployment.new_key()
    laptop = new_machine()
    laptop.answer("seed-corpus", str(LARGE))
    mine = laptop.answer("export")
    assert mine.get("stored") is True
    original = items_of(mine["content"])

    # When it is pushed (the read back of the written items is a stored export there), Then every item is there
    status, first = push(laptop, deployment, key=key)
    assert status == EXIT_OK, first
    assert first["counts"]["created"] == LARGE and first["counts"]["failed"] == 0
    (theirs,) = remote(deployment, ("library_export", {"format": "jsonl"}), key=key)
    assert theirs.get("content") is None and theirs["url"].startswith("http://127.0.0.1")
    assert items_of(exported(deployment, key)) == original

    # When it is pushed again (the target read by its link), Then nothing is written
    status, second = push(laptop, deployment, key=key)
    assert status == EXIT_OK and second["counts"]["unchanged"] == LARGE, second["counts"]

    # When an empty machine pulls it (the source read by its link), Then it holds the original, field by field
    desk = new_machine()
    status, pulled = push(desk, deployment, key=key, direction="pull")
    assert status == EXIT_OK and pulled["counts"]["created"] == LARGE, pulled["counts"]
    assert items_of(desk.answer("export")["content"]) == original


def test_an_item_the_deployment_refuses_by_its_line_is_reported_and_every_other_item_of_the_batch_is_written(
        deployment, new_machine, monkeypatch):
    # Given a deployment whose bound on tags is tighter than this machine's (a deployment of another version; both
    # sides share store/library/bounds.py, so no item this machine holds is refused by this version's bounds), and a
    # machine holding one item past it: the deployment runs in this process, the machine in its own
    monkeypatch.setitem(bounds.LIMITS, "tags", 2)
    key = deployment.new_key()
    laptop = new_machine()
    ids = laptop.answer("seed-corpus", "5", "2", "3")["ids"]

    # When the library is pushed (one batch)
    status, report = push(laptop, deployment, key=key)

    # Then that item alone failed with the deployment's code and message, the others are written there
    assert status == EXIT_CODES["too_large"], report
    assert report["counts"] == {"created": 4, "updated": 0, "unchanged": 0, "kept_newer": 0, "failed": 1}
    (refused,) = [item for item in report["items"] if item["outcome"] == "failed"]
    assert refused["item_id"] == ids[2]
    assert refused["error"]["code"] == "too_large" and "tags of" in refused["error"]["message"]
    assert "at most 2" in refused["error"]["message"]
    assert sorted(items_of(exported(deployment, key))) == sorted(ids[:2] + ids[3:])
