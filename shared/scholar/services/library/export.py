"""Library items written out: BibTeX, CSL-JSON and RIS through the citation writers, and a JSONL snapshot.

The snapshot is the lossless form (scholar.services.library.snapshot reads it back): a header line, then one
LibraryItem per line exactly as stored. An export longer than the size budget is not answered inline: it
is stored under ``exports/<digest>/<uuid>.<ext>`` and handed back as that reference plus a short-lived link.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.records import Paper
from scholar.services.cite import build_entries, to_bibtex, to_csl, to_ris
from scholar.services.fulltext.artifacts import PRESIGN_S
from scholar.services.library.keys import new_export_key
from scholar.store.blobs import BlobStore
from scholar.store.library.models import LibraryItem

ExportFormat = Literal["bibtex", "csl-json", "ris", "jsonl"]
SNAPSHOT_FORMAT = "scholar-library-snapshot"
SNAPSHOT_VERSION = 1
# What an inline export may hold: the size budget less room for the result's other fields.
INLINE_BUDGET = MAX_RESULT_CHARS - 2_000
# Characters that readers splitting on Unicode line breaks (Python's splitlines) would cut a line at; JSON allows
# them raw inside strings, so the escaped form is the same value.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
_TYPES: dict[ExportFormat, tuple[str, str]] = {
    "bibtex": ("bib", "application/x-bibtex; charset=utf-8"),
    "csl-json": ("json", "application/vnd.citationstyles.csl+json; charset=utf-8"),
    "ris": ("ris", "application/x-research-info-systems; charset=utf-8"),
    "jsonl": ("jsonl", "application/x-ndjson; charset=utf-8"),
}


@dataclass
class Export:
    """An export: its text inline, or a reference to the stored object and a link to it."""

    format: ExportFormat
    count: int
    chars: int
    content: str | None = None
    reference: str | None = None
    url: str | None = None
    url_expires_s: int | None = None


def snapshot_header(count: int, collection: str | None, now: datetime | None = None) -> dict[str, object]:
    header: dict[str, object] = {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "exported_at": (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "count": count,
    }
    if collection is not None:
        header["collection"] = collection
    return header


def to_jsonl(items: Sequence[LibraryItem], collection: str | None = None, now: datetime | None = None) -> str:
    """The snapshot: a header line (format, version, exported_at, count), then one item per line."""
    lines = [json.dumps(snapshot_header(len(items), collection, now), separators=(",", ":"))]
    lines += [item.model_dump_json().translate(_LINE_BREAKS) for item in items]
    return "\n".join(lines) + "\n"


def write(items: Sequence[LibraryItem], fmt: ExportFormat, collection: str | None = None) -> str:
    """The text of ``items`` in ``fmt``; citation formats keep the items' order and give each a unique key."""
    if fmt == "jsonl":
        return to_jsonl(items, collection)
    entries = build_entries([Paper.model_validate(item.paper) for item in items])
    if fmt == "bibtex":
        return to_bibtex(entries)
    if fmt == "ris":
        return to_ris(entries)
    return json.dumps(to_csl(entries), ensure_ascii=False, indent=1) + "\n"


def deliver(text: str, fmt: ExportFormat, count: int, principal: str, blobs: BlobStore | None = None) -> Export:
    """Inline when ``text`` fits the budget; otherwise stored under the caller's ``exports/`` prefix with a link.

    Raises:
        ScholarError: the bucket failed (typed by scholar.store).
    """
    if len(text) <= INLINE_BUDGET:
        return Export(format=fmt, count=count, chars=len(text), content=text)
    ext, content_type = _TYPES[fmt]
    key = new_export_key(principal, ext)
    blobs = blobs or BlobStore()
    blobs.put(key, text.encode("utf-8"), content_type)
    return Export(format=fmt, count=count, chars=len(text), reference=key, url=blobs.presign(key, PRESIGN_S),
                  url_expires_s=PRESIGN_S)
