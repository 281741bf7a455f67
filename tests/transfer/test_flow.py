"""The transfer flow between two libraries in memory (tests.transfer.memory): the tools' own export and import, no
server. What a stack cannot produce cheaply: several refused lines in one batch, each answer download_paper can give
(a different file kept, a failure), and the session breaking while a download_paper request is out."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from scholar.core.errors import NotFoundError, UnavailableError
from scholar.local.transfer import NOT_SENT, UNKNOWN, Report, transfer
from scholar.store.library.models import PdfVersion
from tests.fixtures_dir import fixtures_dir
from tests.library.corpus import MemoryLibrary, items
from tests.transfer.memory import memory_library

Download = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


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


# -- kept PDFs: a record goes only with its file ------------------------------------------------------------------


def kept(name: str, kept_at: str = "2026-12-01T10:00:00Z") -> PdfVersion:
    """A PdfVersion record of a real PDF (the fixture's sha256 and size), as the keep step writes it."""
    data = (fixtures_dir() / "pdfs" / name).read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    return PdfVersion(pdf_path=f"pdfs/{sha}.pdf", sha256=sha, size_bytes=len(data), version="preprint",
                      pdf_source="arxiv", source_url="https://arxiv.org/pdf/2305.03393v1", kept_at=kept_at)


MINE = "arxiv_2305.03393v1_page9_only.pdf"
OTHER = "arxiv_2304.02623v1_beyond_summarization.pdf"


def keeping(store: MemoryLibrary, item_id: str, answer: str, asked: list[dict[str, Any]]) -> Download:
    """download_paper on the target: ``answer`` says what its pipeline does (keeps MINE or OTHER, as keep_pdf records
    it on the item, stamping updated_at; queues a task; finds nothing)."""

    async def download(arguments: dict[str, Any]) -> dict[str, Any]:
        asked.append(arguments)
        if answer == "queued":
            return {"queued": True, "task_id": "task-1", "status": "pending"}
        if answer == "none":
            raise NotFoundError("no open PDF of this paper was found", reason="no_pdf")
        record = kept(MINE if answer == "same" else OTHER, kept_at="2026-12-02T10:00:00Z")
        item = store.items[item_id]
        store.put(item.model_copy(update={"pdfs": [*item.pdfs, record], "md_path": f"md/{record.sha256}.md",
                                          "updated_at": record.kept_at}))
        return {"sha256": record.sha256, "pdf_path": record.pdf_path, "item_id": item_id, "newly_kept": True}

    return download


def moved(source: MemoryLibrary, target: MemoryLibrary, download: Download, *, pdfs: bool = True) -> Report:
    report = Report(direction="push", url="memory", dry_run=False, collection=None)
    anyio.run(functools.partial(transfer, memory_library(source), memory_library(target, download=download), report,
                                pdfs=pdfs))
    return report


@pytest.mark.parametrize(("answer", "status", "held"), [
    ("same", "kept", [MINE]), ("different", "kept_other", [OTHER]), ("queued", "queued", []), ("none", "failed", []),
])
def test_a_created_item_holds_a_pdf_record_only_once_the_target_keeps_the_file_itself(answer, status, held):
    # Given a source item with a kept PDF (its record, its Markdown), which the target lacks
    (item,) = items(1)
    mine = item.model_copy(update={"pdfs": [kept(MINE)], "md_path": f"md/{kept(MINE).sha256}.md"})
    source, target, asked = MemoryLibrary([mine]), MemoryLibrary(), []

    # When it is moved, the target's download_paper answering as ``answer``
    report = moved(source, target, keeping(target, mine.item_id, answer, asked))

    # Then the item is created and the PDF is asked for once; the report says what the target did
    (entry,) = report.items
    assert entry.outcome == "created" and len(asked) == 1 and asked[0]["prefer"] == "preprint"
    assert entry.pdf["status"] == status
    if answer == "different":
        assert entry.pdf["sha256"] == [kept(OTHER).sha256] and "different file" in entry.pdf["message"]
    if answer == "queued":
        assert entry.pdf["task_ids"] == ["task-1"]
    # And the target holds the records of the files it kept itself, never the source's record or Markdown
    there = target.items[mine.item_id]
    assert [(pdf.sha256, pdf.kept_at) for pdf in there.pdfs] == [(kept(name).sha256, "2026-12-02T10:00:00Z")
                                                                 for name in held]
    assert there.md_path == (f"md/{kept(held[0]).sha256}.md" if held else None)


def test_a_pdf_the_target_holds_is_kept_without_a_call_and_the_item_is_unchanged():
    # Given a target that kept the same PDF itself (its own record, a later kept_at, updated_at stamped then)
    (item,) = items(1)
    mine = item.model_copy(update={"pdfs": [kept(MINE)], "md_path": f"md/{kept(MINE).sha256}.md"})
    theirs = item.model_copy(update={"pdfs": [kept(MINE, "2026-12-05T00:00:00Z")], "md_path": mine.md_path,
                                     "updated_at": "2026-12-05T00:00:00Z"})
    source, target, asked = MemoryLibrary([mine]), MemoryLibrary([theirs]), []

    # When it is moved, with PDFs and without
    report = moved(source, target, keeping(target, mine.item_id, "same", asked))
    skipping = moved(source, target, keeping(target, mine.item_id, "same", asked), pdfs=False)

    # Then nothing is written or asked for, and the PDF is kept (not left behind) both times
    assert [(i.outcome, i.pdf) for i in report.items + skipping.items] == [("unchanged", {"status": "kept"})] * 2
    assert asked == [] and target.items[mine.item_id].model_dump(exclude={"rev"}) == theirs.model_dump(exclude={"rev"})


def test_without_pdfs_the_items_go_bare_and_the_report_names_the_pdfs_left_behind():
    (first, second) = items(2)
    mine = first.model_copy(update={"pdfs": [kept(MINE), kept(OTHER)], "md_path": f"md/{kept(MINE).sha256}.md"})
    source, target, asked = MemoryLibrary([mine, second]), MemoryLibrary(), []

    report = moved(source, target, keeping(target, mine.item_id, "same", asked), pdfs=False)

    assert {i.item_id: i.pdf for i in report.items} == {mine.item_id: {"status": "skipped", "versions": 2},
                                                        second.item_id: None}
    assert asked == [] and all(not i.pdfs and i.md_path is None for i in target.items.values())
    assert len(target.items) == 2


def test_a_session_broken_while_download_paper_is_out_leaves_that_pdf_unknown_and_the_next_not_sent():
    # Given two created items with kept PDFs; the session breaks during the first download_paper request (the SDK
    # cancels the whole session: the request never answers), as transfer._run then settles the report
    held = [i.model_copy(update={"pdfs": [kept(MINE)]}) for i in items(2)]
    source, target = MemoryLibrary(held), MemoryLibrary()
    report = Report(direction="push", url="memory", dry_run=False, collection=None)

    async def run() -> None:
        with anyio.CancelScope() as session:
            async def download(arguments: dict[str, Any]) -> dict[str, Any]:
                session.cancel()
                await anyio.sleep_forever()
                raise AssertionError("cancelled")

            await transfer(memory_library(source), memory_library(target, download=download), report, pdfs=True)

    anyio.run(run)
    report.stop(UnavailableError("the connection to the deployment was lost"), pdfs=True)

    # Then both items stand created; the PDF asked for is unknown (it was sent), the other one was not sent
    assert [i.outcome for i in report.items] == ["created", "created"]
    first, second = (i.pdf for i in report.items)
    assert first["status"] == "unknown" and first["message"].startswith(UNKNOWN) and first["code"] == "unavailable"
    assert second["status"] == "failed" and second["message"].startswith(NOT_SENT)
    assert report.failed == report.items
    assert all(not i.pdfs for i in target.items.values())
