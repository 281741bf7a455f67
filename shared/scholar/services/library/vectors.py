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
from collections.abc import Sequence
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

    def cosines(self, vector: np.ndarray, rids: Sequence[int]) -> list[float]:
        """The cosine of ``vector`` with the items ``rids`` (0 for an item without a vector)."""
        import numpy as np  # noqa: PLC0415  # lazy: the families' cold import stays free of numpy

        if not len(self.rids):
            return [0.0] * len(rids)
        wanted = np.asarray(rids, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.rids, wanted), len(self.rids) - 1)
        found = self.rids[at] == wanted
        return [float(c) for c in np.where(found, self.vecs[at] @ vector, 0.0)]

    def vector(self, rid: int) -> np.ndarray | None:
        import numpy as np  # noqa: PLC0415  # lazy, as above

        at = int(np.searchsorted(self.rids, rid))
        return self.vecs[at] if at < len(self.rids) and self.rids[at] == rid else None


def digest(conn: sqlite3.Connection, rid: int) -> str | None:
    row = conn.execute("SELECT digest FROM vectors WHERE rid = ?", (rid,)).fetchone()
    return row[0] if row else None


def write(conn: sqlite3.Connection, pending: Sequence[tuple[int, str, str]]) -> None:
    """Embed the ``(rid, digest, text)`` items in one batch and store their vectors (in the caller's transaction)."""
    if not pending:
        return
    vecs = model.embed([text for _, _, text in pending]).astype("<f2")
    conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                     [(rid, dig, vec.tobytes()) for (rid, dig, _), vec in zip(pending, vecs, strict=True)])


def read(conn: sqlite3.Connection) -> Matrix:
    import numpy as np  # noqa: PLC0415  # lazy, as above

    rows = conn.execute("SELECT rid, vec FROM vectors ORDER BY rid").fetchall()
    rids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    flat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f2")
    return Matrix(rids=rids, vecs=flat.reshape(len(rows), model.DIM).astype(np.float32))


def hybrid(query: str, bm25: dict[int, float], allowed: Sequence[int], matrix: Matrix) -> list[tuple[int, float]]:
    """The pool's items best first, each with its fused relevance in [0, 1] (ties by rid)."""
    cosines = matrix.cosines(model.embed([query])[0], allowed)
    pool = [(rid, c) for rid, c in zip(allowed, cosines, strict=True) if rid in bm25 or c >= SEMANTIC_FLOOR]
    scores = fuse([bm25.get(rid, 0.0) for rid, _ in pool], [c for _, c in pool])
    return sorted(((rid, s) for (rid, _), s in zip(pool, scores, strict=True)), key=lambda x: (-x[1], x[0]))


def like(rid: int, allowed: Sequence[int], matrix: Matrix) -> list[tuple[int, float]]:
    """The items nearest item ``rid`` (itself left out), best first, each with its cosine."""
    vector = matrix.vector(rid)
    if vector is None:
        return []
    others = [r for r in allowed if r != rid]
    near = [(r, c) for r, c in zip(others, matrix.cosines(vector, others), strict=True) if c >= SEMANTIC_FLOOR]
    return sorted(near, key=lambda x: (-x[1], x[0]))
