"""The callers' index files of one execution environment: in the temp directory while warm, in S3 between.

Each use catches the caller's index up with the store (scholar.services.library.index) and writes the file back
to ``library/<digest>/index.sqlite`` after a build, after a catch-up cut off by its deadline, and once
``WRITE_BACK_ITEMS`` changed items have gathered since the last write-back: the upload costs the whole file (10 MB
for 10,000 items, most of a one-change re-index), so a change or two is not worth it. The stored copy lags by fewer
than ``WRITE_BACK_ITEMS`` items, which a cold instance catches up from the change log as it does any later write.
Two instances writing back at once lose nothing: the index is derived, and whichever copy survives catches up again
on its next use. A cold instance starts from the S3 copy (or builds from every item when there is none).

Index work is bounded by the call: a build or catch-up that reaches its deadline writes back what it did and
answers ``timeout`` (retryable); the next call, on this instance or another, resumes from there. Each caller's
index has its own lock and file, so one caller's index work never waits on another's.
"""

from __future__ import annotations

import atexit
import logging
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

from scholar.core import backend
from scholar.core.errors import UnavailableError, WorkTimeoutError
from scholar.services.fulltext.artifacts import get_markdown
from scholar.services.library.index import BodyReader, Filters, LibraryIndex, SearchPage
from scholar.services.library.index_catchup import CatchUp, IndexSource, catch_up
from scholar.services.library.keys import caller_digest, index_key
from scholar.store.blobs import BlobStore
from scholar.store.boundary import DISK_FULL

logger = logging.getLogger(__name__)

# Callers whose index stays open in one execution environment; the least recently used is closed and removed.
MAX_OPEN = 8
# Changed items (upserts and deletes) applied to an open index before it is written back.
WRITE_BACK_ITEMS = 20
INDEX_BUDGET_REASON = "library_index_building"


class IndexHolder:
    """The open indexes of one execution environment, one per caller, each caught up before every use."""

    def __init__(self, blobs: BlobStore | None = None, directory: Path | None = None, max_open: int = MAX_OPEN,
                 bodies: BodyReader | None = None) -> None:
        self._blobs = blobs
        self._directory = directory
        self._max_open = max_open
        self._bodies = bodies
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._open: OrderedDict[str, LibraryIndex] = OrderedDict()
        self._unsaved: dict[str, int] = {}  # per open index: changed items applied since its last write-back

    @property
    def blobs(self) -> BlobStore:
        return self._blobs or BlobStore()

    @property
    def directory(self) -> Path:
        """Where this holder keeps its files: given, or a temp directory of its own, made on first use.

        Never one shared by name: ``_load`` replaces ``<digest>.sqlite``, and a second holder (another process
        on the machine, another stack in the process) replacing a file this one has open would leave SQLite
        refusing every write on it ("attempt to write a readonly database").
        """
        with self._lock:
            if self._directory is None:
                self._directory = Path(tempfile.mkdtemp(prefix="scholar-library-"))
            return self._directory

    def _read_body(self, key: str) -> str | None:
        return (self._bodies or (lambda k: get_markdown(k, self.blobs)))(key)

    def fresh(self, principal: str, store: IndexSource, deadline: float | None = None) -> LibraryIndex:
        """The caller's index, caught up with ``store``; the caller must hold ``lock_for(principal)``.

        Raises:
            WorkTimeoutError: (reason ``library_index_building``) ``deadline`` came before the index caught up;
                what was done is written back, and the next call resumes it.
            ScholarError: the store or the bucket failed (typed by scholar.store).
        """
        digest = caller_digest(principal)
        index = self._open.get(digest)
        if index is None:
            index = self._load(principal, digest)
        done = catch_up(index, store, self._read_body, deadline)
        unsaved = self._unsaved.get(digest, 0) + done.applied
        self._unsaved[digest] = unsaved
        if done.changed and (done.built or not done.complete or unsaved >= WRITE_BACK_ITEMS):
            try:
                self.blobs.put_file(str(index.path), index_key(principal), "application/vnd.sqlite3")
                self._unsaved[digest] = 0
            except UnavailableError as exc:
                if exc.reason != DISK_FULL:
                    raise
                # a full disk: the index is current in memory, so the search is answered; the stored copy is
                # written at the next change (a later start catches up from the changes meanwhile)
                self._unsaved[digest] = max(unsaved, WRITE_BACK_ITEMS)
                logger.warning("the library index was not written back: %s", exc.message)
        if not done.complete:
            raise _still_indexing(done)
        return index

    def lock_for(self, principal: str) -> threading.Lock:
        digest = caller_digest(principal)
        with self._lock:
            return self._locks.setdefault(digest, threading.Lock())

    def _load(self, principal: str, digest: str) -> LibraryIndex:
        directory = self.directory
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{digest}.sqlite"
        path.unlink(missing_ok=True)
        key = index_key(principal)
        if self.blobs.exists(key):
            part = directory / f"{digest}.part-{threading.get_ident()}"
            self.blobs.get_file(key, str(part))
            part.replace(path)
        index = LibraryIndex(path)
        with self._lock:
            self._open[digest] = index
            self._unsaved[digest] = 0
            self._evict(keep=digest)
        return index

    def _evict(self, keep: str) -> None:
        """Close the least recently used indexes beyond ``max_open``, skipping any another thread is using."""
        for digest in list(self._open):
            if len(self._open) <= self._max_open:
                return
            lock = self._locks[digest]
            if digest == keep or not lock.acquire(blocking=False):
                continue
            try:
                old = self._open.pop(digest)
                self._unsaved.pop(digest, None)
                old.close()
                old.path.unlink(missing_ok=True)
            finally:
                lock.release()

    def search(self, principal: str, store: IndexSource, query: str, filters: Filters, *, limit: int,
               offset: int, index_by: float | None = None, answer_by: float | None = None,
               like: str | None = None) -> SearchPage:
        """Catch the caller's index up (until ``index_by``), then search it (until ``answer_by``).

        Raises:
            WorkTimeoutError: the index is still being built or caught up, or the search outran ``answer_by``.
        """
        with self.lock_for(principal):
            index = self.fresh(principal, store, index_by)
            with self._lock:
                self._open.move_to_end(caller_digest(principal))
            return index.search(query, filters, limit=limit, offset=offset, deadline=answer_by, like=like)

    def reset(self) -> None:
        """Close every open index and forget it (tests; a new bucket)."""
        with self._lock:
            for index in self._open.values():
                index.close()
                index.path.unlink(missing_ok=True)
            self._open.clear()
            self._unsaved.clear()


def _still_indexing(done: CatchUp) -> WorkTimeoutError:
    return WorkTimeoutError(
        f"your library's search index is being brought up to date ({done.indexed} items indexed so far); "
        "this call's time ran out first", reason=INDEX_BUDGET_REASON, retry_after_s=1.0,
        details={"indexed": done.indexed},
        hint="Call library_search again: each call continues the indexing where the last one stopped.")


HOLDER_STATE = "services.library.index_holder"


def _new_holder() -> IndexHolder:
    made = IndexHolder()
    atexit.register(made.reset)  # the open index files are copies (S3 or the data folder holds the index)
    return made


def holder() -> IndexHolder:
    """The current backend's index holder (created on first use; closed with its backend, or when the process ends)."""
    return backend.state(HOLDER_STATE, _new_holder, on_close=IndexHolder.reset)


def set_holder(value: IndexHolder | None) -> None:
    """Replace the current backend's holder (tests)."""
    old = backend.current().replace_state(HOLDER_STATE, value)
    if old is not None:
        old.reset()
