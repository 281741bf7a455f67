"""The transfer flow between two libraries in memory (tests.transfer.memory): the tools' own export and import, no
server. What a stack cannot produce cheaply: several refused lines in one batch."""

from __future__ import annotations

import functools

import anyio

from scholar.local.transfer import Report, transfer
from tests.library.corpus import MemoryLibrary, items
from tests.transfer.memory import memory_library


def test_several_items_of_one_batch_refused_by_their_lines_fail_alone_and_the_rest_is_written():
    # Given a target whose bound on tags is tighter than the source's, and two items of one batch past it
    held = items(6)
    for index in (1, 4):
        held[index] = held[index].model_copy(update={"tags": ["a", "b", "c"]})
    source, target = MemoryLibrary(held), MemoryLibrary()
    report = Report(direction="push", url="memory", dry_run=False, collection=None)

    # When the source is moved
    anyio.run(functools.partial(transfer, memory_library(source), memory_library(target, limits={"tags": 2}), report,
                                pdfs=False))

    # Then the two fail with the target's refusal of their own line, and the four others are written
    failed = {item.item_id: item.error for item in report.items if item.outcome == "failed"}
    assert set(failed) == {held[1].item_id, held[4].item_id}
    assert all(error["code"] == "too_large" and "tags of " + item_id in error["message"]
               for item_id, error in failed.items())
    assert sorted(target.items) == sorted(item.item_id for i, item in enumerate(held) if i not in (1, 4))
    assert all(item.outcome == "created" for item in report.items if item.item_id not in failed)
