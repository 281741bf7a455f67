"""The standards catalogue: one SQLite file with an identifier key table and an FTS5 index.

Built once per sync (``build_catalogue``), read-only afterwards (``Catalogue``). Lookups never match a
key by prefix or substring (``sp 800-5`` is not ``800-53``): identifiers are found by whole normalised keys
(scholar.families.standards.identifiers), and free text goes to FTS5 (BM25 over identifiers, titles, abstracts).
"""

from __future__ import annotations

import json
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from scholar.families.standards.identifiers import EXACT, WORK, key, query_keys, record_keys
from scholar.families.standards.records import STATUS_RANK, StandardRecord

StatusFilter = Literal["current", "withdrawn", "superseded", "draft", "all"]

_SCHEMA = """
CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE records(
    rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, identifier TEXT NOT NULL, body TEXT NOT NULL,
    status TEXT NOT NULL, status_rank INTEGER NOT NULL, type_rank INTEGER NOT NULL, published TEXT NOT NULL,
    data BLOB NOT NULL);
CREATE TABLE keys(key TEXT NOT NULL, level INTEGER NOT NULL, rid INTEGER NOT NULL);
CREATE TABLE record_bodies(body TEXT NOT NULL, rid INTEGER NOT NULL);
CREATE VIRTUAL TABLE fts USING fts5(
    identifier, title, abstract, facets, content='', tokenize='unicode61 remove_diacritics 2');
"""
_INDEXES = """
CREATE INDEX keys_by_key ON keys(key, level);
CREATE INDEX bodies_by_body ON record_bodies(body, rid);
"""
# FTS column weights (the table's rank function): an identifier token counts most, then the title, the abstract;
# the facets column (body and status tokens, for filtering inside the match) does not rank.
_RANK_CONFIG = "INSERT INTO fts(fts, rank) VALUES ('rank', 'bm25(10.0, 4.0, 1.0, 0.0)');"
_MAX_OTHERS = 25
# Words too common to rank by (they match most records and cost a full scan); dropped when others remain.
_STOPWORDS = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "of", "on", "or", "the",
    "to", "with",
])
# Body names in free text narrow the search to that body instead of matching half the catalogue.
_BODY_WORDS = {"iso": "ISO", "iec": "IEC", "ieee": "IEEE", "etsi": "ETSI", "nist": "NIST", "w3c": "W3C", "ietf": "IETF"}
_WORD = re.compile(r"\w+", re.UNICODE)
_TYPE_RANK = {"consolidated version": 1, "amendment": 2, "corrigendum": 2, "interpretation sheet": 2, "redline": 3}
_IDENTIFIER_SHAPE = re.compile(
    r"^\s*(?:(?:ietf|w3c|nist)\s+)?(?:rfc|bcp|std|fyi|sp|fips|ir|nistir|cswp|iso|iec|ieee|en|etsi|ansi|cispr|ts|tr|gs|gr"
    r"|es|eg)\b[^\d]{0,12}\d|^\s*\d+(?:[-.:]\d+)*[a-z]?\s*$",
    re.I,
)
_STATUS_SETS: dict[str, tuple[str, ...]] = {
    "current": ("current",),
    "withdrawn": ("withdrawn", "superseded"),
    "superseded": ("superseded",),
    "draft": ("draft",),
}


def type_rank(record: StandardRecord) -> int:
    """0 for a base standard; amendments, redlines and drafts rank after it for the same key."""
    if record.status == "draft" or (record.doc_type or "").startswith("draft"):
        return 4
    return _TYPE_RANK.get(record.doc_type or "", 0)


def _fts_identifier(record: StandardRecord) -> str:
    forms = [record.identifier, record.id, *record.aliases]
    return " ".join(dict.fromkeys(forms + [key(f).replace("-", " ") for f in forms]))


def build_catalogue(records: Iterable[StandardRecord], path: Path, meta: dict[str, Any]) -> int:
    """Write a new catalogue file at ``path`` (replacing it); return the number of records.

    Args:
        records: linked records (ids unique; a later duplicate id is dropped).
        path: where the SQLite file goes.
        meta: JSON-serialisable facts stored beside the data (version, bodies, built_at …).
    """
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    try:
        conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
        seen: set[str] = set()
        rows, fts = [], []
        keys: list[tuple[str, int, int]] = []
        bodies: list[tuple[str, int]] = []
        for rid, record in enumerate(records, start=1):
            if record.id in seen:
                continue
            seen.add(record.id)
            rows.append(
                (
                    rid,
                    record.id,
                    record.identifier,
                    record.body,
                    record.status,
                    STATUS_RANK[record.status],
                    type_rank(record),
                    record.published or "",
                    _pack(record),
                )
            )
            keys.extend((k, level, rid) for k, level in record_keys(record))
            bodies.extend((b, rid) for b in dict.fromkeys(record.bodies or [record.body]))
            facets = " ".join([*(f"b{b.lower()}" for b in record.bodies or [record.body]), f"s{record.status}"])
            fts.append((rid, _fts_identifier(record), record.title, record.abstract or "", facets))
        conn.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)", rows)
        conn.executemany("INSERT INTO keys VALUES (?,?,?)", keys)
        conn.executemany("INSERT INTO record_bodies VALUES (?,?)", bodies)
        conn.executemany("INSERT INTO fts(rowid, identifier, title, abstract, facets) VALUES (?,?,?,?,?)", fts)
        conn.executemany("INSERT INTO meta VALUES (?,?)", [(k, json.dumps(v)) for k, v in meta.items()])
        conn.executescript(_INDEXES + _RANK_CONFIG + "INSERT INTO fts(fts) VALUES ('optimize'); ANALYZE;")
        conn.commit()
        return len(rows)
    finally:
        conn.close()


@dataclass
class Resolution:
    """What an identifier lookup found."""

    record: StandardRecord | None = None
    candidates: list[StandardRecord] = field(default_factory=list)
    others: list[StandardRecord] = field(default_factory=list)
    matched_by: Literal["identifier", "title"] | None = None

    @property
    def ambiguous(self) -> bool:
        return self.record is None and bool(self.candidates)


class Catalogue:
    """Read-only queries over one catalogue file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)

    def close(self) -> None:
        self._conn.close()

    def meta(self) -> dict[str, Any]:
        return {name: json.loads(value) for name, value in self._conn.execute("SELECT name, value FROM meta")}

    def count(self) -> int:
        return self._conn.execute("SELECT count(*) FROM records").fetchone()[0]

    def _records(self, rids: list[int]) -> list[StandardRecord]:
        if not rids:
            return []
        marks = ",".join("?" * len(rids))
        rows = dict(self._conn.execute(f"SELECT rid, data FROM records WHERE rid IN ({marks})", rids).fetchall())
        return [_unpack(rows[r]) for r in rids if r in rows]

    def get(self, record_id: str) -> StandardRecord | None:
        """The record with exactly this id."""
        row = self._conn.execute("SELECT data FROM records WHERE id = ?", (record_id,)).fetchone()
        return _unpack(row[0]) if row else None

    def _key_hits(self, keys: list[str]) -> list[tuple[int, int, int, int, str, str]]:
        """(level, status_rank, type_rank, rid, published, identifier) for every record under one of ``keys``."""
        marks = ",".join("?" * len(keys))
        rows = self._conn.execute(
            f"SELECT min(k.level), r.status_rank, r.type_rank, r.rid, r.published, r.identifier FROM keys k "
            f"JOIN records r ON r.rid = k.rid WHERE k.key IN ({marks}) GROUP BY r.rid",
            keys,
        ).fetchall()
        # Best first: the most literal key, then in force, then a base standard, then the newest.
        return sorted(rows, key=lambda r: (r[0], r[1], r[2], _desc(r[4])))

    def resolve(self, raw: str) -> Resolution:
        """Resolve a citation: by identifier keys first, then (for text that is not identifier-shaped) by title."""
        hits = self._key_hits(query_keys(raw))
        if hits:
            return self._from_hits(hits)
        if _IDENTIFIER_SHAPE.search(raw):
            return Resolution()
        return self._by_title(raw)

    def _from_hits(self, hits: list[tuple[int, int, int, int, str, str]]) -> Resolution:
        level = hits[0][0]
        in_force_work = [h for h in hits if h[0] == WORK and h[1] == 0 and h[2] == 0]
        if level == EXACT and hits[0][1] > 0 and in_force_work:
            # "NIST SP 800-53" names both the 2005 original and the work whose Rev. 5 is in force: the work wins.
            level = WORK
        top = [h for h in hits if h[0] <= level]
        if level == WORK and in_force_work:
            # A work without year or revision stands for its newest edition in force; the rest are listed.
            chosen = in_force_work[0]
        else:
            same_kind = [h for h in top if h[2] == top[0][2]]
            if len({h[5] for h in same_kind}) > 1:
                return Resolution(candidates=self._records([h[3] for h in top]), matched_by="identifier")
            chosen = same_kind[0]
        records = self._records([chosen[3]] + [h[3] for h in hits if h[3] != chosen[3]][:_MAX_OTHERS])
        return Resolution(record=records[0], others=records[1:], matched_by="identifier")

    def _by_title(self, raw: str) -> Resolution:
        words = _WORD.findall(raw)
        if not words:
            return Resolution()
        expr = "title : (" + " AND ".join(f'"{w}"' for w in words) + ")"
        rids = [
            row[0]
            for row in self._conn.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT 10", (expr,))
        ]
        records = self._records(rids)
        wanted = key(raw)
        exact = [r for r in records if key(r.title) == wanted]
        if len(exact) == 1:
            return Resolution(record=exact[0], others=[r for r in records if r is not exact[0]], matched_by="title")
        return Resolution(candidates=records, matched_by="title" if records else None)

    def search(
        self, query: str, *, body: str | None = None, status: StatusFilter = "all", limit: int = 10
    ) -> list[StandardRecord]:
        """Rank records for ``query``: identifier matches first, then BM25 over identifiers, titles, abstracts."""
        allowed = self._allowed(body, status)
        ranked: list[int] = [h[3] for h in self._key_hits(query_keys(query)) if allowed(h[3])]
        words, implied = _terms(query)
        if not words or len(ranked) >= limit:
            return self._records(ranked[:limit])
        bodies = "/".join(dict.fromkeys(_bodies(body) + implied)) or None
        every = " AND ".join(f'"{w}"' for w in words)
        if _IDENTIFIER_SHAPE.search(query):
            # An identifier: its words only count in identifiers (years and numbers are everywhere in text).
            passes = [f"identifier : ({every})"]
        else:
            # Titles and identifiers first (small posting lists), abstracts only when those fall short.
            passes = [f"{{identifier title}} : ({every})", every]
        matched = False
        for expr in passes:
            rids, hit = self._fts(expr, bodies, status, limit)
            matched = matched or hit
            ranked.extend(r for r in rids if r not in ranked)
            if len(ranked) >= limit:
                break
        if not matched and not ranked and len(words) > 1 and not _IDENTIFIER_SHAPE.search(query):
            # No record holds every word: rank those holding any of them.
            rids, _ = self._fts(" OR ".join(f'"{w}"' for w in words), bodies, status, limit)
            ranked.extend(rids)
        return self._records(ranked[:limit])

    def _fts(self, expr: str, body: str | None, status: StatusFilter, limit: int) -> tuple[list[int], bool]:
        """Ranked rids matching ``expr`` and the filters (applied inside the match, as facet tokens)."""
        facets = [f'"b{part.lower()}"' for part in _bodies(body)]
        if status != "all":
            facets.append("(" + " OR ".join(f'"s{s}"' for s in _STATUS_SETS[status]) + ")")
        match = f"({expr}) AND facets : ({' AND '.join(facets)})" if facets else expr
        sql = "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?"
        rids = [row[0] for row in self._conn.execute(sql, (match, limit))]
        return rids, bool(rids)

    def _allowed(self, body: str | None, status: StatusFilter) -> Callable[[int], bool]:
        parts = _bodies(body)
        statuses = None if status == "all" else _STATUS_SETS[status]

        def allowed(rid: int) -> bool:
            if statuses is not None:
                row = self._conn.execute("SELECT status FROM records WHERE rid = ?", (rid,)).fetchone()
                if row[0] not in statuses:
                    return False
            return all(
                self._conn.execute("SELECT 1 FROM record_bodies WHERE body = ? AND rid = ?", (p, rid)).fetchone()
                for p in parts
            )

        return allowed


def _terms(query: str) -> tuple[list[str], list[str]]:
    """The words worth an FTS term, and the bodies the query names (``ISO quality`` → quality, [ISO]).

    Stopwords and single characters are dropped (they match most records and cost a full scan); a query of
    nothing else has no text terms at all.
    """
    words = _WORD.findall(query.lower())
    implied = [_BODY_WORDS[w] for w in words if w in _BODY_WORDS]
    kept = [w for w in words if w not in _BODY_WORDS and w not in _STOPWORDS and (len(w) > 1 or w.isdigit())]
    if len([w for w in kept if len(w) > 1]) >= 1:
        kept = [w for w in kept if len(w) > 1]
    # Only stopwords or body names: nothing to rank by (the identifier phase may still have matched).
    return list(dict.fromkeys(kept)), implied


def _pack(record: StandardRecord) -> bytes:
    return zlib.compress(record.model_dump_json(exclude_defaults=True).encode(), 6)


def _unpack(data: bytes) -> StandardRecord:
    return StandardRecord.model_validate_json(zlib.decompress(data))


def _bodies(body: str | None) -> list[str]:
    return [p.strip().upper() for p in body.split("/") if p.strip()] if body else []


def _desc(published: str) -> str:
    """Sort key that puts the newest date first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in published)
