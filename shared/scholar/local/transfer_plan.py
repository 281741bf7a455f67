"""What a library transfer (``scholar.local.transfer``) plans for each item and how it reports the outcome.

An item moves without what each side holds itself: its PDF records and Markdown (the files of that side) and
``updated_at`` (stamped when a side keeps a PDF), so an item equal but for them is ``unchanged``; otherwise the
newer copy wins (``updated``, or ``kept_newer`` when the target's is newer: it stays). The report outlives a broken
session: ``Report.stop`` settles what each item waited for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from scholar.core.errors import ScholarError
from scholar.store.library.models import LibraryItem, PdfVersion

__all__ = ["NOT_SENT", "PDF_FAILING", "UNKNOWN", "Direction", "ItemReport", "Outcome", "Report", "comparable",
           "copy_for", "missing_pdfs", "plan_item"]

Direction = Literal["push", "pull"]
Outcome = Literal["created", "updated", "unchanged", "kept_newer", "failed"]

_DROPPED = ("rev",)  # the store's revision counter: each library's own, not the item's
_OWN = ("pdfs", "md_path", "updated_at")  # each side's own: the files it holds, the time it last wrote the item
NOT_SENT = "not sent after an earlier failure: "
UNKNOWN = "unknown: the session broke after it was sent: "
PDF_FAILING = ("failed", "unknown")  # the PDF statuses that fail a run (its exit status)


def comparable(item: LibraryItem) -> dict[str, Any]:
    return item.model_dump(mode="json", exclude=set(_DROPPED))


def _content(item: LibraryItem) -> dict[str, Any]:
    """What a transfer moves of an item: not its PDF records and Markdown (the files each side holds itself), nor
    ``updated_at`` (stamped when a side keeps a PDF)."""
    return item.model_dump(mode="json", exclude={*_DROPPED, *_OWN})


def copy_for(mine: LibraryItem, theirs: LibraryItem | None) -> LibraryItem:
    """``mine`` as written to the target: with the PDF records and Markdown the target holds (``theirs``), or none."""
    return mine.model_copy(update={"pdfs": list(theirs.pdfs) if theirs else [],
                                   "md_path": theirs.md_path if theirs else None})


def missing_pdfs(mine: LibraryItem, theirs: LibraryItem | None) -> list[PdfVersion]:
    """The PDF versions ``mine`` kept that the target's item does not hold (no record of the same sha256)."""
    held = {pdf.sha256 for pdf in theirs.pdfs} if theirs else set()
    return [pdf for pdf in mine.pdfs if pdf.sha256 not in held]


def plan_item(mine: LibraryItem, theirs: LibraryItem | None) -> tuple[Outcome, LibraryItem | None]:
    """What to do with the source's ``mine`` given the target's ``theirs``: the outcome and the copy to write."""
    if theirs is None:
        return "created", copy_for(mine, None)
    if _content(mine) == _content(theirs):
        return "unchanged", None
    if mine.updated_at > theirs.updated_at:
        return "updated", copy_for(mine, theirs)
    return "kept_newer", None


@dataclass
class ItemReport:
    item_id: str
    title: str | None
    outcome: Outcome
    error: dict[str, Any] | None = None
    pdf: dict[str, Any] | None = None
    wants_pdf: bool = False  # kept PDFs the target lacks are to be kept there
    asking_pdf: bool = False  # a download_paper request for it is out, not answered yet
    sending: Literal["queued", "sent"] | None = None  # its copy waits to be sent, or for the target's answer
    planned: Outcome = field(init=False)

    def __post_init__(self) -> None:
        self.planned = self.outcome

    def fail(self, err: ScholarError, prefix: str = "") -> None:
        self.outcome, self.sending = "failed", None
        self.error = {"code": err.code, "message": (prefix + err.message)[:500]}

    def written(self) -> None:
        """The target holds the copy sent, whatever its call answered (a batch refused after a part was stored)."""
        self.outcome, self.error = self.planned, None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"item_id": self.item_id, "title": self.title, "outcome": self.outcome}
        if self.error:
            out["error"] = self.error
        if self.pdf:
            out["pdf"] = self.pdf
        return out


@dataclass
class Report:
    direction: Direction
    url: str
    dry_run: bool
    collection: str | None
    items: list[ItemReport] = field(default_factory=list)
    collections_created: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    writing: bool = False  # the target may hold something of this run

    def stop(self, err: ScholarError, *, pdfs: bool = False) -> None:
        """Writing stopped on ``err``: the items sent then failed with it, the ones waiting not sent (and, with
        ``pdfs``, the PDFs not asked for yet; one asked for and not answered is ``unknown``). What the target
        answered before stands."""
        for item in self.items:
            if item.sending is not None:
                item.fail(err, NOT_SENT if item.sending == "queued" else "")
            if pdfs and item.wants_pdf and item.pdf is None and item.outcome != "failed":
                status, prefix = ("unknown", UNKNOWN) if item.asking_pdf else ("failed", NOT_SENT)
                item.pdf = {"status": status, "code": err.code, "message": (prefix + err.message)[:300]}

    @property
    def failed(self) -> list[ItemReport]:
        return [i for i in self.items if i.outcome == "failed" or (i.pdf or {}).get("status") in PDF_FAILING]

    def as_dict(self) -> dict[str, Any]:
        counts = {name: 0 for name in ("created", "updated", "unchanged", "kept_newer", "failed")}
        pdfs: dict[str, int] = {}
        for item in self.items:
            counts[item.outcome] += 1
            if item.pdf:
                pdfs[item.pdf["status"]] = pdfs.get(item.pdf["status"], 0) + 1
        out: dict[str, Any] = {"direction": self.direction, "url": self.url, "dry_run": self.dry_run,
                               "counts": counts, "pdfs": pdfs, "collections_created": self.collections_created,
                               "items": [i.as_dict() for i in self.items]}
        if self.collection:
            out["collection"] = self.collection
        if self.warnings:
            out["warnings"] = self.warnings
        return out
