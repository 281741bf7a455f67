"""What one tool call leaves behind (DESIGN §5, UsageTable): outcome and per-source figures, nothing else.

A record never holds the query text, identifiers, arguments, results or the caller's key: only the
tool's name, its family, timings, outcome codes and counts, and the principal as a salted hash
(``hash_principal``). The models are closed (``extra="forbid"``) so nothing else can slip in.
"""

from __future__ import annotations

import hashlib
import hmac

from pydantic import BaseModel, ConfigDict, Field

from scholar.core.numerals import ascii_int
from scholar.store.usage import UsageRow

# Marks a call that asked no upstream (a cached answer, a local tool): its record goes under this name.
NO_SOURCE = "_local"
# The hourly probe's calls are recorded under this tool and family name.
PROBE_TOOL = "probe"
_HASH_CHARS = 16


def is_failure(status: str) -> bool:
    """Whether an attempt's status (an HTTP code, or 'timeout' / 'connect') counts as the source failing."""
    code = ascii_int(status)
    return code is None or code == 429 or code >= 500


def hash_principal(principal: str, salt: str) -> str:
    """The caller as a salted, truncated HMAC-SHA256: stable per deployment, not reversible to the key id."""
    digest = hmac.new(salt.encode(), principal.encode(), hashlib.sha256).hexdigest()
    return digest[:_HASH_CHARS]


class SourceStats(BaseModel):
    """One call's traffic to one upstream source."""

    model_config = ConfigDict(extra="forbid")

    source: str
    requests: int = Field(default=0, ge=0, description="HTTP attempts (retries count)")
    failures: int = Field(default=0, ge=0, description="attempts that failed: 429, 5xx, timeout, no connection")
    throttled: int = Field(default=0, ge=0, description="attempts answered 429")
    statuses: dict[str, int] = Field(default_factory=dict, description="HTTP status, 'timeout' or 'connect' → count")
    latency_ms: int = Field(default=0, ge=0, description="the slowest attempt of this call to this source")
    bytes: int = Field(default=0, ge=0)
    empty: bool | None = Field(default=None, description="the call's answer held no records (None: not a list)")
    records: int | None = Field(default=None, ge=0, description="records this source supplied to the answer")
    missing_abstracts: int | None = Field(default=None, ge=0, description="of those, records without an abstract")

    @property
    def succeeded(self) -> bool:
        return self.requests > self.failures


class UsageRecord(BaseModel):
    """One tool call: what ran, how long, how it ended, and which sources it asked."""

    model_config = ConfigDict(extra="forbid")

    at: float = Field(description="start of the call, epoch seconds")
    request: str = Field(description="a random token that makes the record unique; not the request id")
    tool: str
    family: str
    duration_ms: int = Field(ge=0)
    outcome: str = Field(description="'ok', 'queued' or an error code")
    principal: str = Field(description="salted hash of the caller (hash_principal)")
    ranker: str | None = Field(default=None, description="which ranker ordered a federated search")
    pdf_origin: str | None = Field(default=None, description="which source a PDF came from")
    sources: list[SourceStats] = Field(default_factory=list)


def rows_of(record: UsageRecord) -> list[UsageRow]:
    """The stored form: one row per source asked, each carrying the call's facts."""
    call = record.model_dump(mode="json", exclude={"at", "request", "sources"}, exclude_none=True)
    return [
        UsageRow(
            source=stats.source,
            at=record.at,
            token=record.request,
            doc={**call, "stats": stats.model_dump(mode="json", exclude_none=True, exclude={"source"})},
        )
        for stats in record.sources
    ]


def record_of(row: UsageRow) -> UsageRecord:
    """A stored row read back as a one-source record."""
    doc = dict(row.doc)
    stats = SourceStats(source=row.source, **doc.pop("stats", {}))
    return UsageRecord(at=row.at, request=row.token, sources=[stats], **doc)
