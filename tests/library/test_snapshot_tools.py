"""library_import through the research function: the round trip on the real LibraryStore (moto), by text and by
reference, idempotent, per caller."""

from __future__ import annotations

import pytest

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND
from scholar.store.library.table import LibraryStore
from tests.library.corpus import items
from tests.library.tools import call, fresh_index  # noqa: F401  # fresh_index: a fixture the tests name
from tests.store.content import put_pdf

pytestmark = pytest.mark.usefixtures("library_table", "fresh_index")
ALICE, BOB = "apikey:alice", "apikey:bob"


def kept(values):
    # rev numbers the writes of the library that holds the item: each library counts its own.
    return sorted((v.model_dump(exclude={"rev"}) for v in values), key=lambda d: d["item_id"])


def test_a_jsonl_export_imported_by_another_caller_gives_back_every_item():
    corpus = items(30)  # the richest recorded records: every author, abstracts (a 60,000-character snapshot)
    corpus[2] = corpus[2].model_copy(update={"notes": "ré-lire §3\nsecond line", "tags": ["a:b", "to-read"],
                                             "collection": "thesis/ch2"})
    LibraryStore(ALICE).put_many(corpus)
    text = call("library_export", ALICE, format="jsonl")["result"]["content"]

    first = call("library_import", BOB, jsonl=text)["result"]
    second = call("library_import", BOB, jsonl=text)["result"]

    assert (first["items"], first["added"], first["updated"], first["skipped"]) == (30, 30, 0, 0)
    assert (second["added"], second["updated"], second["skipped"]) == (0, 0, 30)
    assert kept(LibraryStore(BOB).iter_items()) == kept(LibraryStore(ALICE).iter_items())
    assert {c.name for c in LibraryStore(BOB).collections()} == {"inbox", "thesis/ch2"}


def test_an_import_by_reference_reads_the_callers_own_export_and_refuses_anothers():
    LibraryStore(ALICE).put_many(items(200))
    reference = call("library_export", ALICE, format="jsonl")["result"]["reference"]
    LibraryStore(ALICE).delete(items(1)[0].item_id)

    mine = call("library_import", ALICE, reference=reference, collection="restored")["result"]
    theirs = call("library_import", BOB, reference=reference)

    assert (mine["added"], mine["skipped"], mine["collection"]) == (1, 199, "restored")
    assert theirs["error"]["code"] == NOT_FOUND
    assert LibraryStore(BOB).revision() == 0


def test_a_bad_line_names_its_number_and_nothing_is_written():
    LibraryStore(ALICE).put_many(items(5))
    lines = call("library_export", ALICE, format="jsonl")["result"]["content"].splitlines()
    lines[3] = lines[3].replace('"item_id":"lib_', '"item_id":"nope_')

    answer = call("library_import", BOB, jsonl="\n".join(lines))
    both = call("library_import", BOB, jsonl="\n".join(lines), reference="exports/x")

    assert answer["error"]["code"] == INVALID_ARGUMENT
    assert (answer["error"]["details"]["field"], answer["error"]["details"]["line"]) == ("jsonl", 4)
    assert both["error"]["code"] == INVALID_ARGUMENT
    assert LibraryStore(BOB).revision() == 0


def test_an_imported_item_s_pdf_stored_in_this_deployment_is_kept_not_left_to_the_cache(aws):
    from scholar.store.library.models import PdfVersion

    key = put_pdf(b"%PDF-1.7 an imported paper (synthetic bytes)")
    sha = key.removeprefix("pdfs/").removesuffix(".pdf")
    pdf = PdfVersion(pdf_path=key, sha256=sha, size_bytes=44, version="published", pdf_source="url",
                     source_url="https://example.org/paper.pdf", kept_at="2026-12-01T12:00:00Z")
    (item,) = items(1)
    LibraryStore(ALICE).put_many([item.model_copy(update={"pdfs": [pdf]})])
    text = call("library_export", ALICE, format="jsonl")["result"]["content"]
    aws.s3.put_object_tagging(Bucket=aws.bucket, Key=key, Tagging={"TagSet": [{"Key": "retention", "Value": "cache"}]})

    assert call("library_import", BOB, jsonl=text)["result"]["added"] == 1
    assert aws.s3.get_object_tagging(Bucket=aws.bucket, Key=key)["TagSet"] == [{"Key": "retention", "Value": "kept"}]
