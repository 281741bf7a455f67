"""A caller's full-text index: one SQLite FTS5 file per caller, derived from the library.

The file records the library revision it reflects and catches up with the store before it answers
(``changes_since(revision)`` + ``get_many``; an id that is gone was deleted). Where the files live (the temp
directory while warm, ``library/<digest>/index.sqlite`` in S3) is scholar.services.library.index_cache.

Two FTS5 tables, for two costs that grow differently (issue #22):

- ``fts``, one row per item, ranks items (BM25 over every field). It is contentless: ranking reads only the
  index, and the text is stored once, in ``passages``.
- ``passages`` holds each field's text cut into pieces of at most ``PASSAGE_CHARS`` (rowids ``rid * STRIDE + n``)
  and answers the snippet and the matched fields of a hit. FTS5's ``snippet()`` scores every match of a row
  against every other (quadratic in the matches of the row: a 300,000-character abstract of common words took
  8.5 s per hit); on a piece it costs microseconds, whatever the item's size.

Catching up with the store, within a deadline, is scholar.services.library.index_catchup.

A query of words ranks by words and meaning (``hybrid``: BM25 fused with the cosine of vectors kept in the same file,
scholar.services.library.vectors); one in FTS5 syntax (``_SYNTAX``) is searched as written, by BM25 alone.

User text never becomes SQL: queries go to FTS5 ``MATCH`` as a bound parameter. A query FTS5 cannot parse
(stray quotes, ``NEAR(``, a lone ``*``) is searched again as its words, each quoted.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from scholar.core.errors import InternalError, InvalidArgumentError, NotFoundError, WorkTimeoutError
from scholar.services.library import vectors
from scholar.services.library.index_text import FIELDS, MAX_BODY_CHARS, body_key_of, meaning_text, pieces, text_fields
from scholar.store.library.models import LibraryItem

__all__ = ["FIELDS", "MAX_BODY_CHARS", "BodyReader", "Filters", "Hit", "LibraryIndex", "SearchPage", "past"]
SCHEMA_VERSION = 3
SNIPPET_TOKENS = 16
# Rowids of an item's passages: rid * STRIDE + n. A piece is at least 4/5 of PASSAGE_CHARS (cut at whitespace)
# but a field's last, so an item has at most sum(INDEXED_CHARS) / 800 + 6 pieces (~1,300): well under STRIDE.
STRIDE = 1 << 12
MatchMode = Literal["all", "any", "as_written", "hybrid", "like"]
_WEIGHTS = "10.0, 5.0, 3.0, 4.0, 6.0, 1.0"
# SQLite VM steps between two looks at the deadline (a few milliseconds of work).
_PROGRESS_STEPS = 20_000
SEARCH_TIMEOUT = "library_search_timeout"
_TOKENIZE = "tokenize='porter unicode61 remove_diacritics 2'"

_SCHEMA = f"""
CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items(
    rid INTEGER PRIMARY KEY, item_id TEXT NOT NULL UNIQUE, title TEXT, collection TEXT NOT NULL, year INTEGER,
    rev INTEGER NOT NULL, body_key TEXT);
CREATE TABLE item_tags(tag TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY(tag, rid)) WITHOUT ROWID;
CREATE INDEX items_by_collection ON items(collection, year);
CREATE VIRTUAL TABLE fts USING fts5({", ".join(FIELDS)}, content='', {_TOKENIZE});
INSERT INTO fts(fts, rank) VALUES ('rank', 'bm25({_WEIGHTS})');
CREATE VIRTUAL TABLE passages USING fts5({", ".join(FIELDS)}, field UNINDEXED, {_TOKENIZE});
INSERT INTO passages(passages, rank) VALUES ('rank', 'bm25({_WEIGHTS}, 0.0)');
{vectors.TABLE}
"""
_COLUMNS = ", ".join(FIELDS)
_WORD = re.compile(r"\w+", re.UNICODE)
_PLAIN = re.compile(r"[\w\s]+", re.UNICODE)
_OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})
# What makes a query FTS5 syntax rather than words: a quote, an operator in capitals, a prefix*, a column filter
# (``notes:``, ``{title abstract}:``) or an initial-token ``^``. Other punctuation of a sentence is not.
_SYNTAX = re.compile(r'"|\b(?:AND|OR|NOT|NEAR)\b|\w\*|(?:^|[\s(+-])(?:\{[^}]*\}|'
                     + "|".join(FIELDS) + r")\s*:|(?:^|\s)\^\w", re.UNICODE)


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
        parts: list[str] = []
        params: list[Any] = []
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


def _span(rid: int) -> tuple[int, int]:
    """The rowids of item ``rid``'s passages (first, last)."""
    return rid * STRIDE, rid * STRIDE + STRIDE - 1


def past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


class LibraryIndex:
    """One caller's index file: apply changes, answer searches. Not thread-safe by itself (the holder locks)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = self._connect()
        self._matrix: vectors.Matrix | None = None  # the vectors as read, until the next change
        # Another schema or another model's vectors: rebuilt from the library.
        if self._meta("schema") != SCHEMA_VERSION or self._meta("model") != vectors.model.MODEL_ID:
            self._conn.close()
            path.unlink(missing_ok=True)
            self._conn = self._connect()
            self._conn.executescript(_SCHEMA)
            self._set_meta(schema=SCHEMA_VERSION, model=vectors.model.MODEL_ID)
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

    @property
    def build(self) -> dict[str, Any] | None:
        """The build under way: the library ``revision`` it started from and the last item id it indexed."""
        return self._meta("build")

    def start_build(self, revision: int) -> None:
        with self._conn:
            self._set_meta(build={"revision": revision, "after": None})

    def finish_build(self) -> None:
        """Record the revision the finished build started from as the one it reflects."""
        build = self.build or {}
        with self._conn:
            self._set_meta(revision=int(build.get("revision", 0)))
            self._conn.execute("DELETE FROM meta WHERE name = 'build'")

    def clear(self) -> None:
        """Drop every item, the revision and any build under way (the next catch-up builds from every item)."""
        with self._conn:
            self._matrix = None
            self._conn.executescript("INSERT INTO fts(fts) VALUES ('delete-all'); DELETE FROM passages; "
                                     "DELETE FROM item_tags; DELETE FROM items; DELETE FROM vectors; "
                                     "DELETE FROM meta WHERE name IN ('revision', 'build');")

    def count(self) -> int:
        return self._conn.execute("SELECT count(*) FROM items").fetchone()[0]

    def apply(self, items: Iterable[LibraryItem], deleted: Iterable[str], revision: int | None, bodies: BodyReader,
              *, built_after: str | None = None) -> None:
        """Upsert ``items``, drop ``deleted`` ids and record ``revision``, in one transaction.

        While a build is under way (``revision`` None) ``built_after`` records the last item id it indexed.
        """
        dropped: set[int] = set()
        with self._conn:
            for item_id in deleted:
                if (removed := self._remove(item_id)) is not None:
                    self._conn.execute("DELETE FROM vectors WHERE rid = ?", (removed[0],))
                    dropped.add(removed[0])
            embed: list[tuple[int, str, str]] = []  # the items whose title or abstract changed
            for item in items:
                self._upsert(item, bodies, embed)
            written = vectors.write(self._conn, embed)
            if revision is not None:
                self._set_meta(revision=revision)
            if built_after is not None:
                self._set_meta(build=dict(self._meta("build") or {}, after=built_after))
        if self._matrix is not None and (written or dropped):
            # Big changes (a build) are read again when next searched; a few are patched into the matrix kept.
            self._matrix = self._matrix.patched(written, dropped) if len(written) < 1_000 else None

    def _texts(self, rid: int) -> dict[str, str]:
        """The indexed text of each field of the item ``rid``, put back together from its passages."""
        parts: dict[str, list[str]] = {name: [] for name in FIELDS}
        rows = self._conn.execute(f"SELECT field, {_COLUMNS} FROM passages WHERE rowid BETWEEN ? AND ? ORDER BY rowid",
                                  _span(rid))
        for row in rows:
            parts[FIELDS[row[0]]].append(row[1 + row[0]])
        return {name: "".join(texts) for name, texts in parts.items()}

    def _remove(self, item_id: str) -> tuple[int, dict[str, str]] | None:
        """Drop the item; its rid and indexed texts (None when it was not indexed)."""
        row = self._conn.execute("SELECT rid FROM items WHERE item_id = ?", (item_id,)).fetchone()
        if row is None:
            return None
        rid = row[0]
        texts = self._texts(rid)
        # A contentless table forgets a row only when given the very values it indexed.
        self._conn.execute(f"INSERT INTO fts(fts, rowid, {_COLUMNS}) VALUES ('delete', ?, ?, ?, ?, ?, ?, ?)",
                           (rid, *(texts[name] for name in FIELDS)))
        self._conn.execute("DELETE FROM passages WHERE rowid BETWEEN ? AND ?", _span(rid))
        self._conn.execute("DELETE FROM item_tags WHERE rid = ?", (rid,))
        self._conn.execute("DELETE FROM items WHERE rid = ?", (rid,))
        return rid, texts

    def _upsert(self, item: LibraryItem, bodies: BodyReader, embed: list[tuple[int, str, str]]) -> None:
        row = self._conn.execute("SELECT body_key FROM items WHERE item_id = ?", (item.item_id,)).fetchone()
        wanted = body_key_of(item)
        removed = self._remove(item.item_id)
        body: str | None = None
        if removed is not None and wanted is not None and row[0] == wanted:
            body = removed[1]["body"]  # same Markdown as indexed before (a tag or a note changed): no S3 read
        elif wanted is not None:
            body = bodies(wanted)
        year = item.paper.get("year")
        values = (item.item_id, item.paper.get("title"), item.collection, year if isinstance(year, int) else None,
                  item.rev,
                  wanted if body is not None else None)
        if removed is None:
            rid = cast(int, self._conn.execute(  # None only before any INSERT: this one just ran
                "INSERT INTO items(item_id, title, collection, year, rev, body_key) VALUES (?,?,?,?,?,?)", values
            ).lastrowid)
        else:
            rid = removed[0]
            self._conn.execute(
                "INSERT INTO items(rid, item_id, title, collection, year, rev, body_key) VALUES (?,?,?,?,?,?,?)",
                (rid, *values),
            )
        self._conn.executemany(
            "INSERT OR IGNORE INTO item_tags VALUES (?, ?)", [(tag, rid) for tag in dict.fromkeys(item.tags)]
        )
        text = text_fields(item, body)
        meaning, digest = meaning_text(text)
        if removed is None or vectors.digest(self._conn, rid) != digest:
            embed.append((rid, digest, meaning))
        self._conn.execute(f"INSERT INTO fts(rowid, {_COLUMNS}) VALUES (?,?,?,?,?,?,?)",
                           (rid, *(text[name] for name in FIELDS)))
        self._conn.executemany(f"INSERT INTO passages(rowid, {_COLUMNS}, field) VALUES (?,?,?,?,?,?,?,?)",
                               self._passage_rows(rid, text))

    @staticmethod
    def _passage_rows(rid: int, text: dict[str, str]) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        for column, name in enumerate(FIELDS):
            for piece in pieces(text[name]):
                cells: list[str | None] = [None] * len(FIELDS)
                cells[column] = piece
                rows.append((rid * STRIDE + len(rows), *cells, column))
        if len(rows) >= STRIDE:  # unreachable within INDEXED_CHARS; a silent overlap would corrupt the index
            raise InternalError(f"an item's text makes {len(rows)} passages, more than {STRIDE - 1}")
        return rows

    def search(self, query: str, filters: Filters, *, limit: int, offset: int,
               deadline: float | None = None, like: str | None = None) -> SearchPage:
        """A page of hits: by words and meaning (words), by BM25 (FTS5 syntax), or nearest item ``like``.

        Words rank by BM25 (title, tags and authors weigh most, the body least) fused with their meaning.
        A query in FTS5 syntax (``_SYNTAX``: phrases, OR, NOT, prefix*, column filters such as ``notes: draft``) is
        read as written; if FTS5 cannot parse it, its words are searched, all of them, then any of them.

        Raises:
            InvalidArgumentError: (``query``) no searchable word in the query.
            NotFoundError: no item ``like`` in the index.
            WorkTimeoutError: the search was still running at ``deadline`` (SQLite interrupted it).
        """
        where, params = filters.sql()
        if like is not None or not _SYNTAX.search(query):
            with self._interrupted_at(deadline):
                try:
                    return self._by_meaning(query, like, where, params, limit, offset)
                except sqlite3.OperationalError as exc:
                    if _interrupted(exc):
                        raise _timeout() from exc
                    raise
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
        quoted = [f'"{w}"' for w in words]
        # Where a hit's best passage is sought when no single passage holds the whole query: any of its words
        # (FTS5's operators, written in capitals, are not words of the text).
        anywhere = " OR ".join(dict.fromkeys(f'"{w.lower()}"' for w in _WORD.findall(query) if w not in _OPERATORS))
        with self._interrupted_at(deadline):
            try:
                page = self._page(query, "as_written", where, params, limit, offset, anywhere)
            except sqlite3.OperationalError as exc:
                if _interrupted(exc):
                    raise _timeout() from exc
                page = None  # not FTS5 syntax (an unbalanced quote, NEAR( …): search its words instead
            if page is not None and (page.total or not _plain(query) or len(words) < 2):
                return page
            if not words:
                raise InvalidArgumentError("query has no searchable word (letters or digits)", field="query")
            try:
                if page is None:
                    page = self._page(" AND ".join(quoted), "all", where, params, limit, offset, anywhere)
                if page.total == 0 and len(words) > 1:
                    # Plain words no item holds all of: rank the items holding any of them.
                    page = self._page(anywhere, "any", where, params, limit, offset, anywhere)
            except sqlite3.OperationalError as exc:
                if _interrupted(exc):
                    raise _timeout() from exc
                raise
        page.terms = words
        return page

    def _by_meaning(self, query: str, like: str | None, where: str, params: list[Any], limit: int,
                    offset: int) -> SearchPage:
        """The hybrid ranking of a query of words, or the items nearest item ``like``."""
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
        if like is None and not words:
            raise InvalidArgumentError("query has no searchable word (letters or digits)", field="query")
        anywhere = " OR ".join(f'"{w}"' for w in words)
        allowed = vectors.rids(self._conn.execute(f"SELECT items.rid FROM items WHERE 1{where} ORDER BY items.rid",
                                                  params)) if where else None
        if self._matrix is None:
            self._matrix = vectors.read(self._conn)
        if like is not None:
            row = self._conn.execute("SELECT rid FROM items WHERE item_id = ?", (like,)).fetchone()
            if row is None:
                raise NotFoundError(f"your library has no item {like!r}", reason="library_item_not_found",
                                    hint="Pass an item_id from library_list or library_search.")
            ranked = vectors.like(row[0], allowed, self._matrix)
        else:
            every = " OR ".join(f'"{w.lower()}"' for w in _WORD.findall(query))  # a word said twice counts twice
            bm25 = {r: -rank for r, rank in self._conn.execute(f"SELECT items.rid, bm25(fts, {vectors.HYBRID_WEIGHTS}) "
                    f"FROM fts JOIN items ON items.rid = fts.rowid WHERE fts MATCH ?{where}", (every, *params))}
            ranked = vectors.hybrid(query, bm25, allowed, self._matrix)
        shown = ranked[offset : offset + limit]
        rows: dict[int, tuple[str, str | None, str, int | None]] = {r[0]: r[1:] for r in self._conn.execute(
            "SELECT rid, item_id, title, collection, year FROM items WHERE rid IN "
            f"({','.join('?' * len(shown))})", [rid for rid, _ in shown])}
        hits = [self._hit(anywhere, anywhere, rid, *rows[rid], -score) for rid, score in shown]
        return SearchPage(hits=hits, total=len(ranked), match="like" if like is not None else "hybrid",
                          revision=self.revision or 0, terms=words)

    @contextlib.contextmanager
    def _interrupted_at(self, deadline: float | None) -> Iterator[None]:
        """SQLite gives up (``interrupted``) once ``deadline`` has passed: a search never outlives its call."""
        if deadline is None:
            yield
            return
        self._conn.set_progress_handler(lambda: int(time.monotonic() >= deadline), _PROGRESS_STEPS)
        try:
            yield
        finally:
            self._conn.set_progress_handler(None, 0)

    def _page(self, expr: str, mode: MatchMode, where: str, params: list[Any], limit: int, offset: int,
              anywhere: str) -> SearchPage:
        joined = f"FROM fts JOIN items ON items.rid = fts.rowid WHERE fts MATCH ?{where}"
        total = self._conn.execute(f"SELECT count(*) {joined}", (expr, *params)).fetchone()[0]
        rows = self._conn.execute(
            f"SELECT items.rid, items.item_id, items.title, items.collection, items.year, fts.rank {joined} "
            "ORDER BY fts.rank LIMIT ? OFFSET ?",
            (expr, *params, limit, offset),
        ).fetchall()
        hits = [self._hit(expr, anywhere, *row) for row in rows]
        return SearchPage(hits=hits, total=total, match=mode, revision=self.revision or 0)

    def _hit(self, expr: str, anywhere: str, rid: int, item_id: str, title: str | None, collection: str,
             year: int | None, rank: float) -> Hit:
        """The hit of item ``rid``: its best passage's snippet, and the fields holding a match.

        The passage is the best one holding the whole query; when the query spans fields (or passages), the
        best one holding any of its words. The matched fields are those of the passages found the same way.
        """
        span = _span(rid)
        within = "FROM passages WHERE passages MATCH ? AND rowid BETWEEN ? AND ?"
        snippet, matched = "", []
        for candidate in dict.fromkeys(e for e in (expr, anywhere) if e):
            try:
                best = self._conn.execute(f"SELECT rowid {within} ORDER BY rank LIMIT 1", (candidate, *span)).fetchone()
            except sqlite3.OperationalError as exc:
                if _interrupted(exc):
                    raise
                continue  # the expression does not apply to a passage (e.g. a column filter it cannot satisfy)
            if best is None:
                continue
            snippet = self._conn.execute(
                f"SELECT snippet(passages, -1, '**', '**', '…', {SNIPPET_TOKENS}) FROM passages "
                "WHERE passages MATCH ? AND rowid = ?", (candidate, best[0])).fetchone()[0] or ""
            columns = {row[0] for row in self._conn.execute(f"SELECT DISTINCT field {within}", (candidate, *span))}
            matched = [name for column, name in enumerate(FIELDS) if column in columns]
            break
        if not snippet:  # close in meaning, none of the words: the start of its abstract (or title)
            lead = self._conn.execute("SELECT coalesce(abstract, title) FROM passages WHERE rowid BETWEEN ? AND ? "
                                      "AND field IN (0, 2) ORDER BY field DESC, rowid LIMIT 1", span).fetchone()
            snippet = " ".join((lead[0] if lead else "").split()[:SNIPPET_TOKENS]) + "…" if lead else ""
        return Hit(item_id=item_id, title=title, collection=collection, year=year, score=round(-rank, 4),
                   snippet=snippet, matched=matched)


def _interrupted(exc: sqlite3.OperationalError) -> bool:
    return str(exc) == "interrupted"


def _timeout() -> WorkTimeoutError:
    return WorkTimeoutError("the search of your library did not finish within this call's time",
                            reason=SEARCH_TIMEOUT, retry_after_s=1.0,
                            hint="Retry; a narrower query (fewer common words, a collection or tag) answers faster.")
