"""The library's meaning vectors, kept beside its FTS5 index (same SQLite file), and the hybrid ranking.

``vectors(rid, digest, vec)``: one unit vector per item (float16, 512 bytes; scholar.services.semantic.model) of
its title and abstract, written only when that text changed (its ``digest``): catching up after one change embeds
one item. The whole matrix is read once per index file and kept while nothing changes.

Hybrid ranking (a query of plain words): the pool is every item holding any of the words (FTS5 BM25, with the
field weights) and every item whose cosine with the query is at least ``SEMANTIC_FLOOR``; each is scored once by
scholar.services.semantic.fusion (BM25 fused with the cosine). ``like``: the items nearest one item, by cosine.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scholar.services.semantic import model
from scholar.services.semantic.fusion import fuse

if TYPE_CHECKING:
    import numpy as np

TABLE = "CREATE TABLE vectors(rid INTEGER PRIMARY KEY, digest TEXT NOT NULL, vec BLOB NOT NULL);"
# A cosine this high brings an item without any of the query's words into the pool (or into ``like``'s answer).
SEMANTIC_FLOOR = 0.3


@dataclass(frozen=True)
class Matrix:
    rids: np.ndarray  # sorted item rids (int64)
    vecs: np.ndarray  # one unit vector per rid (float32)

    def positions(self, rids: np.ndarray) -> np.ndarray:
        """Where each of ``rids`` is (every item has a vector: ``write`` stores one per item upserted)."""
        import numpy as np  # noqa: PLC0415  # lazy: the families' cold import stays free of numpy

        return np.minimum(np.searchsorted(self.rids, rids), max(len(self.rids) - 1, 0))

    def patched(self, written: dict[int, np.ndarray], dropped: set[int]) -> Matrix:
        """This matrix after ``written`` vectors were stored and ``dropped`` items removed (no re-read)."""
        import numpy as np  # noqa: PLC0415  # lazy, as above

        keep = ~np.isin(self.rids, np.fromiter(set(written) | dropped, dtype=np.int64))
        rids = np.concatenate([self.rids[keep], np.fromiter(written, dtype=np.int64, count=len(written))])
        new = np.array(list(written.values()), dtype=np.float32).reshape(-1, model.DIM)
        vecs = np.concatenate([self.vecs[keep], new])
        order = np.argsort(rids, kind="stable")
        return Matrix(rids=rids[order], vecs=vecs[order])


def digest(conn: sqlite3.Connection, rid: int) -> str | None:
    row = conn.execute("SELECT digest FROM vectors WHERE rid = ?", (rid,)).fetchone()
    return row[0] if row else None


def write(conn: sqlite3.Connection, pending: Sequence[tuple[int, str, str]]) -> dict[int, np.ndarray]:
    """Embed the ``(rid, digest, text)`` items and store their vectors (in the caller's transaction); the vectors."""
    if not pending:
        return {}
    vecs = model.embed([text for _, _, text in pending])
    stored = vecs.astype("<f2")
    rows = [(rid, dig, vec.tobytes()) for (rid, dig, _), vec in zip(pending, stored, strict=True)]
    conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
    return {rid: vec for (rid, _, _), vec in zip(pending, stored.astype("float32"), strict=True)}


def read(conn: sqlite3.Connection) -> Matrix:
    import numpy as np  # noqa: PLC0415  # lazy, as above

    rows = conn.execute("SELECT rid, vec FROM vectors ORDER BY rid").fetchall()
    rids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    flat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f2")
    return Matrix(rids=rids, vecs=flat.reshape(len(rows), model.DIM).astype(np.float32))


def rids(rows: Iterable[tuple[int]]) -> np.ndarray:
    """The rids of an SQL answer (sorted by the query), as the rankings take them."""
    import numpy as np  # noqa: PLC0415  # lazy, as above

    return np.fromiter((r[0] for r in rows), dtype=np.int64)


def _best(rids: np.ndarray, scores: np.ndarray) -> list[tuple[int, float]]:
    import numpy as np  # noqa: PLC0415  # lazy, as above

    order = np.lexsort((rids, -scores))
    return list(zip(rids[order].tolist(), scores[order].tolist(), strict=True))


def hybrid(query: str, bm25: dict[int, float], allowed: np.ndarray | None, matrix: Matrix) -> list[tuple[int, float]]:
    """The pool's items best first, each with its fused relevance in [0, 1] (ties by rid).

    ``allowed``: the rids the filters let through (None: every item).
    """
    import numpy as np  # noqa: PLC0415  # lazy, as above

    rids = matrix.rids if allowed is None else allowed
    if not len(rids):
        return []
    cosines = matrix.vecs[matrix.positions(rids)] @ model.embed([query])[0]
    words = np.zeros(len(rids))
    if bm25:
        found = np.fromiter(bm25, dtype=np.int64, count=len(bm25))
        at = np.searchsorted(rids, found)
        inside = at < len(rids)
        inside[inside] = rids[at[inside]] == found[inside]
        words[at[inside]] = np.fromiter(bm25.values(), dtype=np.float64, count=len(bm25))[inside]
    pool = (words > 0) | (cosines >= SEMANTIC_FLOOR)
    return _best(rids[pool], fuse(words[pool], cosines[pool]))


def like(rid: int, allowed: np.ndarray | None, matrix: Matrix) -> list[tuple[int, float]]:
    """The items nearest item ``rid`` (itself left out), best first, each with its cosine."""
    rids = matrix.rids if allowed is None else allowed
    at = int(matrix.positions(matrix.rids.dtype.type(rid)))
    if not len(matrix.rids) or matrix.rids[at] != rid:
        return []
    cosines = matrix.vecs[matrix.positions(rids)] @ matrix.vecs[at]
    near = (cosines >= SEMANTIC_FLOOR) & (rids != rid)
    return _best(rids[near], cosines[near].astype("float64"))
