"""The catalogue as the standards function sees it: a local copy of the current version, re-checked at most
once a minute, and the cold path (no catalogue yet) that starts a sync and hands back a task.

The copy lives under the temp directory and survives warm invocations; a newer version is downloaded
beside it and swapped in, then the old file is removed.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from scholar.core import backend
from scholar.families.standards.catalogue_db import Catalogue
from scholar.families.standards.storage import IndexStore, Pointer

logger = logging.getLogger(__name__)

RECHECK_S = 60.0


class CatalogueHolder:
    """One open catalogue per execution environment, refreshed from the pointer at most every ``recheck_s``."""

    def __init__(
        self,
        store: IndexStore | None = None,
        directory: Path | None = None,
        recheck_s: float = RECHECK_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._directory = directory
        self._recheck_s = recheck_s
        self._clock = clock
        self._lock = threading.Lock()
        self._catalogue: Catalogue | None = None
        self._pointer: Pointer | None = None
        self._checked_at: float | None = None

    @property
    def store(self) -> IndexStore:
        return self._store or IndexStore()

    @property
    def directory(self) -> Path:
        return self._directory or Path(tempfile.gettempdir()) / "scholar-standards"

    @property
    def pointer(self) -> Pointer | None:
        return self._pointer

    def get(self) -> Catalogue | None:
        """The current catalogue, or None while none has been published (cold)."""
        with self._lock:
            now = self._clock()
            if self._checked_at is not None and now - self._checked_at < self._recheck_s:
                return self._catalogue
            self._checked_at = now
            pointer = self.store.read_pointer()
            if pointer is None:
                return self._catalogue
            if self._pointer is None or pointer.version != self._pointer.version or self._catalogue is None:
                self._swap(pointer)
            return self._catalogue

    def _swap(self, pointer: Pointer) -> None:
        path = self.store.download(pointer.key, self.directory / f"index-{pointer.version}.sqlite")
        old, old_path = self._catalogue, self._catalogue.path if self._catalogue else None
        self._catalogue, self._pointer = Catalogue(path), pointer
        logger.info("standards catalogue %s loaded (%d records)", pointer.version, pointer.records)
        if old is not None:
            old.close()
            if old_path and old_path != path:
                old_path.unlink(missing_ok=True)

    def reset(self) -> None:
        """Forget the open catalogue (tests; a new store)."""
        with self._lock:
            if self._catalogue is not None:
                self._catalogue.close()
            self._catalogue = self._pointer = self._checked_at = None


HOLDER_STATE = "families.standards.catalogue_holder"


def holder() -> CatalogueHolder:
    """The current backend's catalogue holder (created on first use, closed with its backend)."""
    return backend.state(HOLDER_STATE, CatalogueHolder, on_close=CatalogueHolder.reset)


def set_holder(value: CatalogueHolder | None) -> None:
    """Replace the current backend's holder (tests)."""
    old = backend.current().replace_state(HOLDER_STATE, value)
    if old is not None:
        old.reset()


def body_warnings(pointer: Pointer | None, body: str | None) -> tuple[list[str], list[str]]:
    """(failed bodies, warning lines) of the catalogue: bodies with no data, and bodies served from stale data."""
    if pointer is None:
        return [], []
    failed, lines = [], []
    wanted = {p.strip().upper() for p in body.split("/")} if body else None
    for name, meta in pointer.bodies.items():
        if wanted is not None and name not in wanted:
            continue
        if meta.records == 0:
            failed.append(name)
            lines.append(f"{name}: not synced yet" + (f" ({meta.error})" if meta.error else ""))
        elif meta.error:
            synced = time.strftime("%Y-%m-%d", time.gmtime(meta.synced_at)) if meta.synced_at else "an earlier run"
            lines.append(f"{name}: the last sync failed, serving data from {synced} ({meta.error})")
    return failed, lines
