"""Sync runs as get_sync_status reports them: one row per body, kept in the CacheTable.

Items live under ``alias#syncrun#<body>`` (the alias namespace never expires); each sync overwrites the
body's row with its latest run.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from scholar.standards.records import BODIES
from scholar.store.cache import Cache

NAMESPACE = "alias"


class SyncRun(BaseModel):
    """The latest sync of one body."""

    body: str
    upstream_ref: str | None = Field(default=None, description="Upstream version synced (ETag, checksum, commit).")
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    withdrawn: int = 0
    errors: list[str] = Field(default_factory=list, description="Non-fatal errors of the run; empty on success.")
    started_at: float
    finished_at: float | None = None
    outcome: str = Field(default="ok", description="ok | unchanged | failed | aborted (kept the last good data)")


def _key(body: str) -> str:
    return f"syncrun#{body.lower()}"


def record_run(run: SyncRun, cache: Cache | None = None) -> None:
    """Store ``run`` as the body's latest."""
    (cache or Cache(memory=False)).put(NAMESPACE, _key(run.body), run.model_dump(mode="json"))


def latest_runs(cache: Cache | None = None) -> list[SyncRun]:
    """The latest run of every body that has been synced, in catalogue body order."""
    found = (cache or Cache(memory=False)).get_many(NAMESPACE, [_key(b) for b in BODIES])
    return [SyncRun.model_validate(found[_key(b)]) for b in BODIES if _key(b) in found]
