"""Sync runs as get_sync_status reports them: one row per body, kept in the CacheTable.

Items live under ``alias#syncrun#<body>`` (the alias namespace never expires); each sync overwrites the
body's row with its latest run.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from scholar.families.standards.records import BODIES
from scholar.store.cache import Cache

NAMESPACE = "alias"
MAX_ERROR_SAMPLES = 5
MAX_ERROR_CHARS = 300


class SyncRun(BaseModel):
    """The latest sync of one body."""

    body: str
    upstream_ref: str | None = Field(default=None, description="Upstream version synced (ETag, checksum, commit).")
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    withdrawn: int = 0
    errors: list[str] = Field(
        default_factory=list,
        description=f"Up to {MAX_ERROR_SAMPLES} distinct errors of the run (the last one included); empty on success.",
    )
    error_count: int = Field(default=0, description="How many errors the run met in all.")
    started_at: float
    finished_at: float | None = None
    outcome: str = Field(
        default="ok",
        description="ok | partial (data added, with errors) | unchanged | failed (errors, nothing added) | "
        "aborted (kept the last good data)",
    )


def summarise_errors(errors: list[str]) -> tuple[list[str], int]:
    """A few distinct, shortened samples of ``errors`` (the first ones and the last) and their count.

    A cold run can meet thousands of failing documents; get_sync_status must stay a small answer.
    """
    distinct = list(dict.fromkeys(e[:MAX_ERROR_CHARS] for e in errors))
    if len(distinct) > MAX_ERROR_SAMPLES:
        distinct = [*distinct[: MAX_ERROR_SAMPLES - 1], distinct[-1]]  # the last says how the run ended
    return distinct, len(errors)


def _key(body: str) -> str:
    return f"syncrun#{body.lower()}"


def record_run(run: SyncRun, cache: Cache | None = None) -> None:
    """Store ``run`` as the body's latest."""
    (cache or Cache(memory=False)).put(NAMESPACE, _key(run.body), run.model_dump(mode="json"))


def latest_runs(cache: Cache | None = None) -> list[SyncRun]:
    """The latest run of every body that has been synced, in catalogue body order."""
    found = (cache or Cache(memory=False)).get_many(NAMESPACE, [_key(b) for b in BODIES])
    return [SyncRun.model_validate(found[_key(b)]) for b in BODIES if _key(b) in found]
