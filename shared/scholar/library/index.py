"""A caller's full-text index: one SQLite FTS5 file per caller, derived from the library.

The file records the library revision it reflects and catches up with the store before it answers
(``changes_since(revision)`` + ``get_many``; an id that is gone was deleted). Where the files live (the temp
directory while warm, ``library/<digest>/index.sqlite`` in S3) is scholar.library.index_cache.

User text never becomes SQL: queries go to FTS5 ``MATCH`` as a bound parameter. A query FTS5 cannot parse
(stray quotes, ``NEAR(``, a lone ``*``) is searched again as its words, each quoted.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from scholar.errors import InvalidArgumentError
from scholar.fulltext.artifacts import md_key
from scholar.store.library_models import LibraryItem

SCHEMA_VERSION = 1
FIELDS = ("title", "authors", "abstract", "notes", "tags", "body")
MAX_BODY_CHARS = 400_000
SNIPPET_TOKENS = 16
# A change feed longer than this is read with get_many in slices of this size.
GET_MANY_CHUNK = 100
MatchMode = Literal["all", "any", "as_written"]

_SCHEMA = f"""
CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items(
    rid INTEGER PRIMARY KEY, item_id TEXT NOT NULL UNIQUE, title TEXT, collection TEXT NOT NULL, year INTEGER,
    rev INTEGER NOT NULL, body_key TEXT);
CREATE TABLE item_tags(tag TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY(tag, rid)) WITHOUT ROWID;
CREATE INDEX items_by_collection ON items(collection, year);
CREATE VIRTUAL TABLE fts USING fts5({", ".join(FIELDS)}, tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO fts(fts, rank) VALUES ('rank', 'bm25(10.0, 5.0, 3.0, 4.0, 6.0, 1.0)');
"""
_WORD = re.compile(r"\w+", re.UNICODE)
_PLAIN = re.compile(r"[\w\s]+", re.UNICODE)
_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})
_OPEN, _CLOSE = "\x01", "\x02"


class IndexSource(Protocol):
    """What the index reads from the library store (scholar.store.library.LibraryStore has these)."""

    def revision(self) -> int: ...

    def get_many(self, ids: list[str]) -> dict[str, LibraryItem]: ...

    def changes_since(self, rev: int) -> tuple[list[str], int]: ...

    def iter_items(self) -> Iterator[LibraryItem]: ...


BodyReader = Callable[[str], "str | None"]


@dataclass
class Hit:
    item_id: str
    title: str | None
    collection: str
    year: int | None
    score: float
    snippet: str
    matched: list[str]


@dataclass
class SearchPage:
    hits: list[Hit]
    total: int
    match: MatchMode
    revision: int
    terms: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Filters:
    collection: str | None = None
    tag: str | None = None
    year_start: int | None = None
    year_end: int | None = None

    def sql(self) -> tuple[str, list[Any]]:
        parts, params = [], []
        if self.collection is not None:
            parts.append("items.collection = ?")
            params.append(self.collection)
        if self.year_start is not None:
            parts.append("items.year >= ?")
            params.append(self.year_start)
        if self.year_end is not None:
            parts.append("items.year <= ?")
            params.append(self.year_end)
        if self.tag is not None:
            parts.append("items.rid IN (SELECT rid FROM item_tags WHERE tag = ?)")
            params.append(self.tag)
        return "".join(f" AND {p}" for p in parts), params


def _plain(query: str) -> bool:
    """Only words: no FTS5 operator, phrase, prefix or column filter the caller meant literally."""
    return bool(_PLAIN.fullmatch(query)) and not _OPERATORS.intersection(query.split())


def body_key_of(item: LibraryItem) -> str | None:
    """The Markdown the item's body comes from: its ``md_path``, else that of its newest PDF (built-in converter)."""
    if item.md_path:
        return item.md_path
    return md_key(item.pdfs[-1].sha256, "builtin") if item.pdfs else None


def _text_fields(item: LibraryItem) -> dict[str, str]:
    paper = item.paper
    authors = [a.get("name") or "" for a in paper.get("authors") or [] if isinstance(a, dict)]
    return {
        "title": paper.get("title") or "",
        "authors": " ; ".join(a for a in authors if a),
        "abstract": paper.get("abstract") or paper.get("tldr") or "",
        "notes": item.notes or "",
        "tags": " ".join(item.tags),
    }


def _year(item: LibraryItem) -> int | None:
    year = item.paper.get("year")
    return year if isinstance(year, int) else None


class LibraryIndex:
    """One caller's index file: apply changes, answer searches. Not thread-safe by itself (the holder locks)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = self._connect()
        if self._meta("schema") != SCHEMA_VERSION:
            self._conn.close()
            path.unlink(missing_ok=True)
            self._conn = self._connect()
            self._conn.executescript(_SCHEMA)
            self._set_meta(schema=SCHEMA_VERSION)
            self._conn.commit()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False)
        # No fsync: the file is derived and only uploaded after a commit; a torn local copy is rebuilt or replaced.
        conn.execute("PRAGMA synchronous=OFF")
        return conn

    def close(self) -> None:
        self._conn.close()

    def _meta(self, name: str) -> Any:
        try:
            row = self._conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        except sqlite3.DatabaseError:
            return None  # no meta table (a new file) or not an index at all: rebuilt by the caller
        return json.loads(row[0]) if row else None

    def _set_meta(self, **values: Any) -> None:
        self._conn.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in values.items()]
        )

    @property
    def revision(self) -> int | None:
        """The library revision this index reflects; None before its first build."""
        return self._meta("revision")

    def clear(self) -> None:
        """Drop every item and the revision (the next catch-up builds from every item)."""
        with self._conn:
            self._conn.executescript("DELETE FROM fts; DELETE FROM item_tags; DELETE FROM items; "
                                     "DELETE FROM meta WHERE name = 'revision';")

    def count(self) -> int:
        return self._conn.execute("SELECT count(*) FROM items").fetchone()[0]

    def apply(
        self, items: Iterable[LibraryItem], deleted: Iterable[str], revision: int, bodies: BodyReader
    ) -> None:
        """Upsert ``items``, drop ``deleted`` ids and record ``revision``, in one transaction."""
        with self._conn:
            for item_id in deleted:
                self._remove(item_id)
            for item in items:
                self._upsert(item, bodies)
            self._set_meta(revision=revision)

    def _remove(self, item_id: str) -> int | None:
        row = self._conn.execute("SELECT rid FROM items WHERE item_id = ?", (item_id,)).fetchone()
        if row is None:
            return None
        self._conn.execute("DELETE FROM fts WHERE rowid = ?", row)
        self._conn.execute("DELETE FROM item_tags WHERE rid = ?", row)
        self._conn.execute("DELETE FROM items WHERE rid = ?", row)
        return row[0]

    def _upsert(self, item: LibraryItem, bodies: BodyReader) -> None:
        row = self._conn.execute("SELECT rid, body_key FROM items WHERE item_id = ?", (item.item_id,)).fetchone()
        wanted = body_key_of(item)
        body: str | None = None
        if row is not None and wanted is not None and row[1] == wanted:
            # Same Markdown as indexed before (a tag or a note changed): reuse it rather than read S3 again.
            body = self._conn.execute("SELECT body FROM fts WHERE rowid = ?", (row[0],)).fetchone()[0]
        elif wanted is not None:
            body = bodies(wanted)
        rid = self._remove(item.item_id)
        values = (item.item_id, item.paper.get("title"), item.collection, _year(item), item.rev,
                  wanted if body is not None else None)
        if rid is None:
            rid = self._conn.execute(
                "INSERT INTO items(item_id, title, collection, year, rev, body_key) VALUES (?,?,?,?,?,?)", values
            ).lastrowid
        else:
            self._conn.execute(
                "INSERT INTO items(rid, item_id, title, collection, year, rev, body_key) VALUES (?,?,?,?,?,?,?)",
                (rid, *values),
            )
        self._conn.executemany(
            "INSERT OR IGNORE INTO item_tags VALUES (?, ?)", [(tag, rid) for tag in dict.fromkeys(item.tags)]
        )
        text = _text_fields(item)
        self._conn.execute(
            f"INSERT INTO fts(rowid, {', '.join(FIELDS)}) VALUES (?,?,?,?,?,?,?)",
            (rid, *(text[f] for f in FIELDS[:-1]), (body or "")[:MAX_BODY_CHARS]),
        )

    def search(self, query: str, filters: Filters, *, limit: int, offset: int) -> SearchPage:
        """A page of hits ranked by BM25 (title, tags and authors weigh most, the body least).

        The query is first read as FTS5 syntax (phrases, OR, NOT, prefix*, column filters such as
        ``notes: draft``); if FTS5 cannot parse it, its words are searched, all of them, then any of them.

        Raises:
            InvalidArgumentError: (``query``) no searchable word in the query.
        """
        where, params = filters.sql()
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
        try:
            page = self._page(query, "as_written", where, params, limit, offset)
        except sqlite3.OperationalError:
            page = None  # not FTS5 syntax (an unbalanced quote, NEAR( …): search its words instead
        if page is not None and (page.total or not _plain(query) or len(words) < 2):
            return page
        if not words:
            raise InvalidArgumentError("query has no searchable word (letters or digits)", field="query")
        quoted = [f'"{w}"' for w in words]
        if page is None:
            page = self._page(" AND ".join(quoted), "all", where, params, limit, offset)
        if page.total == 0 and len(words) > 1:
            # Plain words no item holds all of: rank the items holding any of them.
            page = self._page(" OR ".join(quoted), "any", where, params, limit, offset)
        page.terms = words
        return page

    def _page(self, expr: str, mode: MatchMode, where: str, params: list[Any], limit: int, offset: int) -> SearchPage:
        joined = f"FROM fts JOIN items ON items.rid = fts.rowid WHERE fts MATCH ?{where}"
        total = self._conn.execute(f"SELECT count(*) {joined}", (expr, *params)).fetchone()[0]
        rows = self._conn.execute(
            f"SELECT items.rid, items.item_id, items.title, items.collection, items.year, fts.rank {joined} "
            "ORDER BY fts.rank LIMIT ? OFFSET ?",
            (expr, *params, limit, offset),
        ).fetchall()
        hits = [self._hit(expr, *row) for row in rows]
        return SearchPage(hits=hits, total=total, match=mode, revision=self.revision or 0)

    def _hit(self, expr: str, rid: int, item_id: str, title: str | None, collection: str, year: int | None,
             rank: float) -> Hit:
        # Per field, a one-token snippet carries the open mark only where that field matched.
        marks = ", ".join(f"snippet(fts, {i}, char(1), char(2), '', 1)" for i in range(len(FIELDS)))
        row = self._conn.execute(
            f"SELECT snippet(fts, -1, '**', '**', '…', {SNIPPET_TOKENS}), {marks} FROM fts "
            "WHERE fts MATCH ? AND rowid = ?",
            (expr, rid),
        ).fetchone()
        matched = [name for name, mark in zip(FIELDS, row[1:], strict=True) if mark and _OPEN in mark]
        return Hit(item_id=item_id, title=title, collection=collection, year=year, score=round(-rank, 4),
                   snippet=row[0] or "", matched=matched)


def catch_up(index: LibraryIndex, store: IndexSource, bodies: BodyReader) -> bool:
    """Bring ``index`` to the store's current revision; return whether anything changed.

    A new index is built from every item, recording the revision read *before* listing them: a write
    made while listing is applied again on the next catch-up, which is harmless (upserts are idempotent).
    """
    if index.revision is None:
        revision = store.revision()
        index.apply(store.iter_items(), (), revision, bodies)
        return True
    ids, latest = store.changes_since(index.revision)
    if latest < index.revision:
        # The library is behind its index (deleted and started again): nothing in the index can be trusted.
        index.clear()
        return catch_up(index, store, bodies)
    if not ids:
        if latest != index.revision:
            index.apply((), (), latest, bodies)
            return True
        return False
    ids = list(dict.fromkeys(ids))
    found: dict[str, LibraryItem] = {}
    for start in range(0, len(ids), GET_MANY_CHUNK):
        found.update(store.get_many(ids[start:start + GET_MANY_CHUNK]))
    index.apply(found.values(), [i for i in ids if i not in found], latest, bodies)
    return True
