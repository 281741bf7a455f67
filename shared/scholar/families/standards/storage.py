"""Where the catalogue lives in S3: immutable versions, a pointer to the current one, per-body last good data.

Readers never see a half-built index: a version is uploaded under ``standards/index-<version>.sqlite`` and
only then does ``standards/current.json`` name it. Each body's last good records sit under
``standards/bodies/<body>.json.gz`` so a body whose sync fails keeps serving what it had.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from scholar.families.standards.records import StandardRecord
from scholar.store.blobs import BlobStore

PREFIX = "standards"
POINTER_KEY = f"{PREFIX}/current.json"


class BodyMeta(BaseModel):
    """What the catalogue says about one body."""

    records: int = 0
    upstream_ref: str | None = None
    synced_at: float | None = None
    error: str | None = None


class Pointer(BaseModel):
    """The small object naming the current catalogue version."""

    version: str
    key: str
    built_at: float
    records: int
    bodies: dict[str, BodyMeta] = Field(default_factory=dict)


class BodyState(BaseModel):
    """A body's last good sync: its records and what is needed to sync it incrementally next time."""

    body: str
    upstream_ref: str | None = None
    validators: dict[str, Any] = Field(default_factory=dict)
    records: list[StandardRecord] = Field(default_factory=list)
    synced_at: float | None = None


def version_key(version: str) -> str:
    return f"{PREFIX}/index-{version}.sqlite"


class IndexStore:
    """Catalogue versions, the pointer and body states in the artifact bucket."""

    def __init__(self, blobs: BlobStore | None = None) -> None:
        self._blobs = blobs

    @property
    def blobs(self) -> BlobStore:
        return self._blobs or BlobStore()

    def read_pointer(self) -> Pointer | None:
        """The current pointer, or None before the first catalogue was published."""
        data = self.blobs.get(POINTER_KEY)
        return Pointer.model_validate_json(data) if data is not None else None

    def publish(self, path: Path, pointer: Pointer) -> None:
        """Upload the catalogue file, then make it current (in that order)."""
        self.blobs.put(pointer.key, path.read_bytes(), "application/vnd.sqlite3")
        self.blobs.put(POINTER_KEY, pointer.model_dump_json().encode(), "application/json")

    def download(self, key: str, dest: Path) -> Path:
        """Fetch a catalogue version to ``dest`` atomically (a temp file renamed into place)."""
        data = self.blobs.get(key)
        if data is None:
            raise FileNotFoundError(key)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_suffix(f".part-{os.getpid()}")
        tmp.write_bytes(data)
        tmp.replace(dest)
        return dest

    def read_body(self, body: str) -> BodyState | None:
        data = self.blobs.get(f"{PREFIX}/bodies/{body.lower()}.json.gz")
        return BodyState.model_validate_json(gzip.decompress(data)) if data is not None else None

    def write_body(self, state: BodyState) -> None:
        data = gzip.compress(state.model_dump_json(exclude_defaults=True).encode(), 6)
        self.blobs.put(f"{PREFIX}/bodies/{state.body.lower()}.json.gz", data, "application/gzip")
