"""A push to Zotero cut off mid-way, then pushed again, writes each item once (issue #40 item 1).

The cut is a kill simulated in the HTTP layer: the fake Zotero (Web API v3, tests/fakes/zotero.py) applies the
N-th write and the process "dies" before it reads the answer (a ``BaseException`` nothing in the push catches, as
``kill -9`` leaves nothing to catch), or dies before the N-th write is sent. Before the fix the links were stored
only at the end: 120 items cut after 1 write became 170 in Zotero.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx
import pytest

from scholar.services.connectors.zotero_map import scholar_id
from scholar.services.connectors.zotero_push import push
from tests.connectors.conftest import run
from tests.connectors.items import epmc_items, many_items
from tests.fakes.zotero import PUBLIC_LIBRARY, FakeZotero


class Killed(BaseException):
    """The process died here (nothing catches it, as nothing survives a SIGKILL)."""


def _kill_after(fake: FakeZotero, writes: int, *, answered: bool) -> None:
    """Die at the ``writes``-th item write: after Zotero applied it (answer lost) or before it is sent."""
    handle, seen = fake.handle, [0]

    async def dying(source: str, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/items"):
            seen[0] += 1
            if seen[0] == writes:
                if answered:
                    await handle(source, request)
                raise Killed
        return await handle(source, request)

    fake.handle = dying  # type: ignore[method-assign]  # the crash is injected into this fake only


def _copies(fake: FakeZotero) -> Counter[tuple[str | None, str]]:
    """(our Scholar id or parent key, item type) → how many objects Zotero holds for it."""
    objects: list[dict[str, Any]] = [o["data"] for o in fake.libraries[PUBLIC_LIBRARY].items.values()]
    return Counter(
        (scholar_id(d) or d.get("parentItem"), d["itemType"]) for d in objects if scholar_id(d) or d.get("parentItem")
    )


@pytest.mark.parametrize("answered", [True, False], ids=["answer-lost", "before-write"])
@pytest.mark.parametrize("cut", [1, 2, 3])
def test_a_push_killed_after_some_confirmed_writes_then_pushed_again_writes_each_item_once(
    fake, client, store, cut, answered
):
    items = many_items(120, "reading")
    _kill_after(fake, cut, answered=answered)
    with pytest.raises(Killed):
        run(push(client, store, items, "reading"))
    fake.handle = FakeZotero.handle.__get__(fake)  # type: ignore[method-assign]  # the next run lives
    fake.log.clear()
    report = run(push(client, store, items, "reading"))
    lookups = [s for s in fake.log if s.method == "GET" and s.path == f"/{PUBLIC_LIBRARY}/items"]
    # every confirmed batch was linked at once: only an answer lost in the kill needs the look-up by Scholar id
    assert len(lookups) == (1 if answered else 0)
    copies = _copies(fake)
    assert sorted(copies.values()) == [1] * 120, copies.most_common(3)
    assert {i.item_id for i in items} == {k for k, _ in copies}
    assert report.items.failed == 0 and report.items.created + report.items.unchanged == 120
    assert run(push(client, store, items, "reading")).items.unchanged == 120


def test_a_push_killed_between_the_items_and_their_notes_writes_each_note_once(fake, client, store):
    items = [i.model_copy(update={"notes": f"Note {n}."}) for n, i in enumerate(epmc_items(3))]
    _kill_after(fake, 2, answered=True)  # write 1: the items, write 2: their child notes (answer lost)
    with pytest.raises(Killed):
        run(push(client, store, items, "reading"))
    fake.handle = FakeZotero.handle.__get__(fake)  # type: ignore[method-assign]  # the next run lives
    report = run(push(client, store, items, "reading"))
    notes = [
        d
        for o in fake.libraries[PUBLIC_LIBRARY].items.values()
        if (d := o["data"])["itemType"] == "note" and d.get("parentItem")
    ]
    assert len(notes) == 3 and report.notes.created == 0 and report.notes.unchanged == 3
    assert sorted(_copies(fake).values()) == [1] * 6


def test_a_push_killed_after_writing_the_attachment_item_attaches_the_pdf_once(fake, client, store, fixture_file):
    import hashlib

    from tests.connectors.items import with_pdf

    data = fixture_file("pdfs/arxiv_2305.03393v1_page9_only.pdf")  # real recorded bytes; only carried here
    (item,) = epmc_items(1)
    item = with_pdf(item, data, hashlib.sha256(data).hexdigest())

    async def read(reference: str) -> bytes | None:
        return data if reference == item.pdfs[0].pdf_path else None

    _kill_after(fake, 2, answered=True)  # write 1: the item, write 2: its attachment item (answer lost)
    with pytest.raises(Killed):
        run(push(client, store, [item], "reading", read_file=read))
    fake.handle = FakeZotero.handle.__get__(fake)  # type: ignore[method-assign]  # the next run lives
    report = run(push(client, store, [item], "reading", read_file=read))
    library = fake.libraries[PUBLIC_LIBRARY]
    attachments = [
        o for o in library.items.values() if o["data"]["itemType"] == "attachment" and o["data"].get("parentItem")
    ]
    assert len(attachments) == 1 and report.files == {"uploaded": 1}
    assert library.files[attachments[0]["key"]] == hashlib.md5(data, usedforsecurity=False).hexdigest()


def test_a_resumed_push_and_a_new_one_side_by_side_write_each_item_once(fake, client, store):
    import asyncio

    from scholar.services.connectors.zotero_push import push as zotero_push

    items = many_items(120, "reading")

    async def both() -> list:
        return list(
            await asyncio.gather(
                zotero_push(client, store, items, "reading"), zotero_push(client, store, items, "reading")
            )
        )

    first, second = run(both())
    assert sorted(_copies(fake).values()) == [1] * 120
    assert sorted([first.items.created, second.items.created]) == [0, 120]
