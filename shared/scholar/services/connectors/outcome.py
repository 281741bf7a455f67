"""What a sync reports: per item created, updated, unchanged or failed (with the other side's own code and message).

Honest partial results: a batch in which one object failed still reports the others as written, and a failure
is never folded into "unchanged". The shapes are pydantic models so the tools return them as they are.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Status = Literal["created", "updated", "unchanged", "failed", "conflict"]


class ItemOutcome(BaseModel):
    """One of our items (or, on a pull, one of theirs) and what the sync did with it."""

    item_id: str | None = Field(default=None, description="Our library item id")
    key: str | None = Field(default=None, description="The item's key on the other side (Zotero item key)")
    title: str | None = None
    status: Status
    code: int | None = Field(default=None, description="The other side's status code for a failure (e.g. 412)")
    message: str | None = Field(default=None, description="The other side's own message for a failure")


class Counts(BaseModel):
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: int = 0


class SyncReport(BaseModel):
    """The answer of one sync."""

    target: str
    direction: Literal["push", "pull"]
    library: str
    collection: str | None = None
    dry_run: bool = False
    items: Counts = Field(default_factory=Counts)
    notes: Counts = Field(default_factory=Counts, description="Our notes as child notes (push) or read back (pull)")
    files: dict[str, int] = Field(default_factory=dict, description="PDF attachments: uploaded, exists, failed")
    results: list[ItemOutcome] = Field(default_factory=list, description="Every item that was not unchanged")
    requests: int = Field(default=0, description="Requests sent to the other side")
    location: str | None = Field(default=None, description="bibtex / obsidian: the file or folder written, or (hosted) "
                                 "a download link valid for 15 minutes")

    def count(self, outcome: ItemOutcome, *, notes: bool = False) -> None:
        """Add an outcome to the counts (conflicts count as failed) and, unless unchanged, to the results."""
        counts = self.notes if notes else self.items
        field = "failed" if outcome.status == "conflict" else outcome.status
        setattr(counts, field, getattr(counts, field) + 1)
        if outcome.status != "unchanged" and not notes or outcome.status in ("failed", "conflict"):
            self.results.append(outcome)
