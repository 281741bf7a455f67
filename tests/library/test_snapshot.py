"""JSONL snapshot import (scholar.services.library.snapshot): validated line by line, idempotent, lossless."""

from __future__ import annotations

import json

import pytest

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, ScholarError
from scholar.services.library import export, snapshot
from tests.library.corpus import MemoryLibrary, items

ALICE, BOB = "apikey:alice", "apikey:bob"


def without_rev(values):
    # rev is the revision of the library that stored the item: each library numbers its own writes.
    return [v.model_dump(exclude={"rev"}) for v in values]


def test_the_jsonl_round_trip_gives_back_every_item_unchanged():
    corpus = items(60)
    corpus[3] = corpus[3].model_copy(update={"notes": "ré-lire §3 «quoted»\nline two", "tags": ["a:b", "c-d"]})
    source = MemoryLibrary(corpus)
    text = export.write(list(source.iter_items()), "jsonl")

    parsed = snapshot.parse_snapshot(text)
    target = MemoryLibrary()
    summary = snapshot.import_items(target, parsed.items)

    assert len(summary.added) == 60 and not summary.updated and not summary.skipped
    assert without_rev(target.iter_items()) == without_rev(source.iter_items())


def test_importing_the_same_snapshot_twice_adds_nothing_the_second_time():
    corpus = items(20)
    text = export.to_jsonl(corpus)
    target = MemoryLibrary()
    snapshot.import_items(target, snapshot.parse_snapshot(text).items)
    revision = target.rev

    again = snapshot.import_items(target, snapshot.parse_snapshot(text).items)

    assert (len(again.added), len(again.updated), len(again.skipped)) == (0, 0, 20)
    assert target.rev == revision


def test_an_existing_item_is_replaced_only_by_a_newer_copy():
    corpus = items(3)
    target = MemoryLibrary(corpus)
    newer = corpus[0].model_copy(update={"notes": "newer", "updated_at": "2026-12-01T09:00:00Z"})
    older = corpus[1].model_copy(update={"notes": "older", "updated_at": "2020-01-01T00:00:00Z"})

    summary = snapshot.import_items(target, [newer, older, corpus[2]])

    assert (summary.updated, summary.skipped) == ([corpus[0].item_id], [corpus[1].item_id, corpus[2].item_id])
    assert target.items[corpus[0].item_id].notes == "newer"
    assert target.items[corpus[1].item_id].notes is None


def test_a_collection_override_files_every_imported_item_there():
    target = MemoryLibrary()

    snapshot.import_items(target, items(4), collection="imported/2026")

    assert {i.collection for i in target.iter_items()} == {"imported/2026"}


def lines_of(text):
    return text.rstrip("\n").split("\n")


@pytest.mark.parametrize(
    ("damage", "line"),
    [
        (lambda ls: ls[:2] + ["{not json"] + ls[3:], 3),
        (lambda ls: ls[:3] + [json.dumps({**json.loads(ls[3]), "item_id": "lib_nothex"})] + ls[4:], 4),
        (lambda ls: ls[:2] + [json.dumps({**json.loads(ls[2]), "surprise": 1})] + ls[3:], 3),
        (lambda ls: ls[:2] + [json.dumps({**json.loads(ls[2]), "paper": {"title": ["a", "list"]}})] + ls[3:], 3),
        (lambda ls: ls[:4] + [ls[2]], 5),
        (lambda ls: ['{"format": "csv"}'] + ls[1:], 1),
        (lambda ls: [json.dumps({**json.loads(ls[0]), "version": 99})] + ls[1:], 1),
        (lambda ls: ls[:-1], 5),
        (lambda ls: ls + [ls[1].replace(json.loads(ls[1])["item_id"], "lib_" + "f" * 20)], 6),
    ],
    ids=["not-json", "bad-id", "unknown-field", "bad-paper", "repeated-id", "no-header", "future-version", "truncated",
         "one-too-many"],
)
def test_a_bad_line_is_an_invalid_argument_naming_its_line_number(damage, line):
    text = "\n".join(damage(lines_of(export.to_jsonl(items(4))))) + "\n"

    with pytest.raises(ScholarError) as caught:
        snapshot.parse_snapshot(text)

    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.details["field"] == "jsonl"
    assert caught.value.details["line"] == line


def test_an_export_reference_is_read_back_for_its_caller_only(aws):
    text = export.write(items(400), "jsonl")
    stored = export.deliver(text, "jsonl", 400, ALICE)
    assert stored.reference

    mine = snapshot.read_reference(stored.reference, ALICE)
    with pytest.raises(ScholarError) as theirs:
        snapshot.read_reference(stored.reference, BOB)
    with pytest.raises(ScholarError) as path:
        snapshot.read_reference("pdfs/" + "0" * 64 + ".pdf", ALICE)
    with pytest.raises(ScholarError) as gone:
        snapshot.read_reference(stored.reference.rsplit("/", 1)[0] + "/" + "0" * 32 + ".jsonl", ALICE)

    assert mine == text
    assert (theirs.value.code, path.value.code, gone.value.code) == (NOT_FOUND, INVALID_ARGUMENT, NOT_FOUND)
