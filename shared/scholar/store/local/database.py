"""The local backend's one SQLite file (WAL): every table's rows, every execution, under ``SCHOLAR_HOME``.

Several processes may open the same folder (``scholar mcp`` beside a ``scholar`` command): SQLite's WAL lets readers
go on while one writer writes, and every write here is one ``BEGIN IMMEDIATE`` transaction, so a conditioned write
(check, then change) is atomic across processes as DynamoDB's are. A killed process leaves its open transaction
uncommitted: SQLite rolls it back at the next open and everything committed before stays. SQLite's and the file
system's failures leave here as our typed errors that name the file and say what to do (``sqlite_errors``).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scholar.core.errors import UnavailableError
from scholar.store.boundary import DISK_FULL

DATABASE_FILE = "scholar.sqlite3"
# How long a writer waits for another process's write to finish before reporting the database as busy.
BUSY_TIMEOUT_MS = 10_000
SCHEMA = (
    # One row per item of every table: h/r are the hash and range key values (r "" for a hash-only table), item
    # the whole typed item as JSON, expires_at copied out so expired rows can be purged without reading JSON.
    """CREATE TABLE IF NOT EXISTS items (
        tbl TEXT NOT NULL, h TEXT NOT NULL, r TEXT NOT NULL, item TEXT NOT NULL, expires_at REAL, owner TEXT,
        PRIMARY KEY (tbl, h, r)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS items_expiry ON items (expires_at) WHERE expires_at IS NOT NULL",
    # What S3 keeps beside an object's bytes: its content type and tags (retention=cache|kept, scholar.store.blobs).
    """CREATE TABLE IF NOT EXISTS objects (
        bucket TEXT NOT NULL, key TEXT NOT NULL, content_type TEXT, tags TEXT, PRIMARY KEY (bucket, key))""",
    # State machines created through the API (tests; a definition file needs none), by ARN.
    "CREATE TABLE IF NOT EXISTS machines (arn TEXT PRIMARY KEY, definition TEXT NOT NULL)",
    # Step Functions executions run in this process (scholar.runtime.local_executions); owner is the process.
    """CREATE TABLE IF NOT EXISTS executions (
        arn TEXT PRIMARY KEY, machine TEXT NOT NULL, input TEXT NOT NULL, status TEXT NOT NULL, output TEXT,
        error TEXT, cause TEXT, started_at REAL NOT NULL, stopped_at REAL, owner TEXT, attempts INTEGER NOT NULL)""",
)


def describe(exc: BaseException, path: Path) -> UnavailableError:
    """Our error for a SQLite or file-system failure on ``path``: what happened and what to do."""
    text = str(exc).lower()
    number = getattr(exc, "errno", None)
    if "locked" in text or "busy" in text:
        return UnavailableError(f"the database {path} is locked by another process", retryable=True,
                                reason="store_locked",
                                hint="Another Scholar process is writing; retry, or close the other process.")
    if "full" in text or number == errno.ENOSPC:
        return UnavailableError(f"the disk holding {path} is full; the write that failed was rolled back",
                                retryable=True, reason=DISK_FULL,
                                hint=f"Free space on the disk holding {path}, then retry.")
    if "readonly" in text or "read-only" in text or number in (errno.EROFS, errno.EACCES, errno.EPERM):
        return UnavailableError(f"{path} is not writable", retryable=False, reason="store_read_only",
                                hint=f"Make {path} writable by this user, or set SCHOLAR_HOME to a writable folder.")
    if number in (errno.EEXIST, errno.ENOTDIR):
        return UnavailableError(f"{path} or a folder above it is a file where a folder should be", retryable=False,
                                reason="store_not_a_folder",
                                hint=f"Move the file aside, or set SCHOLAR_HOME to a folder; {path} is not usable.")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return UnavailableError(f"the database {path} is corrupt", retryable=False, reason="store_corrupt",
                                hint=f"Move {path} aside (keep it: it may be recoverable with sqlite3 .recover) "
                                     "and start again; Scholar creates a new one.")
    return UnavailableError(f"the local store {path} failed ({type(exc).__name__})", retryable=True,
                            reason="store_failed", hint=f"Check that {path} and its folder are usable, then retry.")


@contextmanager
def sqlite_errors(path: Path) -> Iterator[None]:
    """Run local-store code whose SQLite and OS failures leave as our typed errors naming ``path``.

    Raises:
        UnavailableError: locked, full, read-only, corrupt or otherwise failing (see ``describe``).
    """
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        raise describe(exc, path) from exc


class Database:
    """The SQLite file under ``home``: one connection per thread, WAL, writes as immediate transactions."""

    def __init__(self, home: Path, busy_timeout_ms: int = BUSY_TIMEOUT_MS) -> None:
        self.home = home
        self.busy_timeout_ms = busy_timeout_ms
        self.path = home / DATABASE_FILE
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        with sqlite_errors(home):
            home.mkdir(parents=True, exist_ok=True)
        if not os.access(home, os.W_OK):
            raise describe(PermissionError(errno.EACCES, "not writable"), home)
        try:
            with self.write() as db:
                for statement in SCHEMA:
                    db.execute(statement)
        except BaseException:
            self.close()
            raise

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (opened on first use)."""
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            with sqlite_errors(self.path):
                db = sqlite3.connect(self.path, timeout=self.busy_timeout_ms / 1000, isolation_level=None,
                                     check_same_thread=False)
            with self._lock:
                self._connections.append(db)
            with sqlite_errors(self.path):
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a commit survives a process kill
                db.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            self._local.db = db
        return db

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        with sqlite_errors(self.path):
            yield self.connection()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One immediate transaction: committed when the block ends, rolled back when it raises."""
        db = self.connection()
        with sqlite_errors(self.path):
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            for db in self._connections:
                db.close()
            self._connections.clear()
        self._local = threading.local()
