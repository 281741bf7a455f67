"""The research function's resource actions against moto: the caller's library as resources, and its completions.

Called through ``functions.research.app.lambda_handler`` as the gateway invokes them (``{"action", "principal", …}``),
so the answer is the outcome envelope every family function returns.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest

from functions.research.app import lambda_handler
from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND
from scholar.core.resource_actions import COMPLETE_ACTION, LIST_ACTION, READ_ACTION
from scholar.families.research.resources import handlers
from scholar.services.fulltext import artifacts
from scholar.store.blobs import BlobStore
from scholar.store.library.models import PdfVersion
from scholar.store.library.table import LibraryStore
from tests.fixtures_dir import fixtures_dir
from tests.library.helpers import NOW, recorded_item

pytestmark = pytest.mark.usefixtures("library_table")

ALICE, BOB = "key:alice", "key:bob"
PDF = "pdfs/arxiv_2305.03393v1_page9_only.pdf"


def act(lambda_context: Any, action: str, principal: str = ALICE, **fields: Any) -> dict[str, Any]:
    return lambda_handler({"action": action, "principal": principal, **fields}, lambda_context)


def ok(outcome: dict[str, Any]) -> dict[str, Any]:
    assert outcome["ok"] is True, outcome
    return outcome["result"]


def failed(outcome: dict[str, Any]) -> str:
    assert outcome["ok"] is False, outcome
    return outcome["error"]["code"]


def kept_item(n: int, *, collection: str = "inbox", tags: tuple[str, ...] = ()) -> tuple[str, bytes, str]:
    """A recorded paper in Alice's library with a real PDF kept and its Markdown stored: (item id, PDF, Markdown)."""
    data = (fixtures_dir() / PDF).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    blobs = BlobStore()
    pdf_path = blobs.put(artifacts.pdf_key(sha), data, "application/pdf")
    markdown = "<!-- page 1 -->\n# A kept paper\n\nIts body.\n"
    md_path = artifacts.md_key(sha, "builtin")
    artifacts.put_markdown(md_path, markdown)
    version = PdfVersion(pdf_path=pdf_path, sha256=sha, size_bytes=len(data), version="preprint", pdf_source="arxiv",
                         source_url="https://arxiv.org/pdf/2305.03393v1", kept_at=NOW)
    item = recorded_item(n, collection=collection, tags=tags).model_copy(update={"pdfs": [version],
                                                                                 "md_path": md_path})
    LibraryStore(ALICE).put(item)
    return item.item_id, data, markdown


def test_the_list_holds_the_callers_items_in_id_order_and_pages_with_a_cursor(lambda_context, monkeypatch):
    store = LibraryStore(ALICE)
    items = [store.put(recorded_item(n, collection="thesis")) for n in range(3)]
    monkeypatch.setattr(handlers, "PAGE_SIZE", 2)

    first = ok(act(lambda_context, LIST_ACTION))
    second = ok(act(lambda_context, LIST_ACTION, cursor=first["next_cursor"]))
    bobs = ok(act(lambda_context, LIST_ACTION, principal=BOB))

    listed = [r["uri"] for r in first["resources"] + second["resources"]]
    assert listed == [f"scholar://library/{i.item_id}" for i in sorted(items, key=lambda i: i.item_id)]
    assert "next_cursor" not in second
    entry = first["resources"][0]
    assert entry["mime_type"] == "application/json" and "collection thesis" in entry["description"]
    assert bobs == {"resources": []}


def test_a_cursor_that_was_never_handed_out_is_an_invalid_argument(lambda_context):
    assert failed(act(lambda_context, LIST_ACTION, cursor="not-a-cursor")) == INVALID_ARGUMENT


def test_an_item_reads_as_its_record_with_the_uris_of_its_pdf_and_markdown(lambda_context):
    item_id, _, _ = kept_item(4, tags=("kept",))
    uri = f"scholar://library/{item_id}"

    read = ok(act(lambda_context, READ_ACTION, uri=uri))

    (content,) = read["contents"]
    record = json.loads(content["text"])
    assert (content["uri"], content["mime_type"]) == (uri, "application/json")
    assert (record["item_id"], record["tags"]) == (item_id, ["kept"])
    assert (record["pdf_uri"], record["markdown_uri"]) == (f"{uri}/pdf", f"{uri}/markdown")
    assert read["ttl_ms"] == 60_000


def test_a_kept_pdf_reads_as_a_blob_and_its_markdown_as_text(lambda_context):
    item_id, data, markdown = kept_item(5)

    pdf = ok(act(lambda_context, READ_ACTION, uri=f"scholar://library/{item_id}/pdf"))
    text = ok(act(lambda_context, READ_ACTION, uri=f"scholar://library/{item_id}/markdown"))

    assert pdf["contents"][0]["mime_type"] == "application/pdf"
    assert base64.b64decode(pdf["contents"][0]["blob"]) == data
    assert (text["contents"][0]["mime_type"], text["contents"][0]["text"]) == ("text/markdown", markdown)


def test_a_pdf_over_the_inline_cap_comes_as_a_uri_list_with_a_short_lived_link(lambda_context, monkeypatch):
    item_id, data, _ = kept_item(6)
    monkeypatch.setattr(handlers, "MAX_INLINE_BYTES", len(data) - 1)

    read = ok(act(lambda_context, READ_ACTION, uri=f"scholar://library/{item_id}/pdf"))

    (content,) = read["contents"]
    comment, link = content["text"].strip().split("\r\n")
    assert content["mime_type"] == "text/uri-list" and "blob" not in content
    assert comment.startswith("#") and f"{len(data):,} bytes" in comment
    assert link.startswith("http") and f"/{artifacts.pdf_key(hashlib.sha256(data).hexdigest())}?" in link
    assert read["ttl_ms"] < artifacts.PRESIGN_S * 1000


def test_another_callers_item_is_not_found_exactly_as_an_item_that_never_was(lambda_context):
    item_id, _, _ = kept_item(7)
    never = "lib_" + "0" * 20

    outcomes = [act(lambda_context, READ_ACTION, principal=BOB, uri=f"scholar://library/{i}{suffix}")
                for i in (item_id, never) for suffix in ("", "/pdf", "/markdown")]

    assert [failed(o) for o in outcomes] == [NOT_FOUND] * 6
    words = [o["error"]["message"].replace(item_id, "<id>").replace(never, "<id>") for o in outcomes]
    assert words[:3] == words[3:]


@pytest.mark.parametrize("uri", ["scholar://library/not-an-item", "scholar://nothing/here", "https://example.org/x",
                                 "scholar://paper/10.1073%2Fpnas.1414271111/markdown"])
def test_a_uri_that_names_nothing_stored_is_not_found(lambda_context, uri):
    assert failed(act(lambda_context, READ_ACTION, uri=uri)) == NOT_FOUND


def test_an_item_without_a_pdf_has_no_pdf_or_markdown_resource(lambda_context):
    item = LibraryStore(ALICE).put(recorded_item(8))

    for suffix in ("/pdf", "/markdown"):
        assert failed(act(lambda_context, READ_ACTION, uri=f"scholar://library/{item.item_id}{suffix}")) == NOT_FOUND


def test_completions_offer_the_callers_collections_tags_and_item_ids(lambda_context):
    store = LibraryStore(ALICE)
    store.create_collection("thesis-ch2")
    item = store.put(recorded_item(9, collection="thesis-ch1", tags=("turing", "computability")))

    collections = ok(act(lambda_context, COMPLETE_ACTION, argument="collection", value="thesis"))
    tags = ok(act(lambda_context, COMPLETE_ACTION, argument="tag", value="comp"))
    by_id = ok(act(lambda_context, COMPLETE_ACTION, argument="item_id", value=item.item_id[:7]))
    by_hex = ok(act(lambda_context, COMPLETE_ACTION, argument="item_id", value=item.item_id[4:9]))
    bobs = ok(act(lambda_context, COMPLETE_ACTION, principal=BOB, argument="tag", value=""))

    assert collections == {"values": ["thesis-ch1", "thesis-ch2"], "total": 2, "has_more": False}
    assert tags["values"] == ["computability"]
    assert by_id["values"] == by_hex["values"] == [item.item_id]
    assert bobs == {"values": [], "total": 0, "has_more": False}


def test_a_malformed_action_request_is_an_invalid_argument_naming_the_field(lambda_context):
    outcome = act(lambda_context, COMPLETE_ACTION, argument="password", value="")

    assert failed(outcome) == INVALID_ARGUMENT and outcome["error"]["details"]["field"] == "argument"
