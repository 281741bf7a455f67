"""Paging a ranked result set: the whole set is stored once in the cache, bound to its caller.

A cursor is opaque to callers (base64url of the set id and the next offset), so page 2 is page 2 of the
same ranking, not a new search. The set lives under ``search#research:<owner>:<set id>`` for ``SET_TTL_S``;
``owner`` is a digest of the principal, so another caller's cursor finds nothing, exactly like an expired
one: both are ``not_found`` with the advice to search again.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import secrets
from typing import Any

from scholar.core.errors import InvalidArgumentError, NotFoundError
from scholar.store.cache import Cache

NAMESPACE = "search"
SET_TTL_S = 3600
_SEARCH_AGAIN = "Search again with the same query: result sets are kept for an hour, for the caller who searched."


def owner(principal: str) -> str:
    return hashlib.sha256(principal.encode()).hexdigest()[:24]


def new_set_id() -> str:
    return secrets.token_urlsafe(12)


def encode_cursor(set_id: str, offset: int) -> str:
    raw = json.dumps({"s": set_id, "o": offset}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, int]:
    """The set id and offset of a cursor.

    Raises:
        InvalidArgumentError: (field ``cursor``) not a cursor this tool wrote.
    """
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        set_id, offset = data["s"], data["o"]
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise InvalidArgumentError("cursor is not a cursor this tool returned; pass next_cursor unchanged",
                                   field="cursor") from exc
    if not isinstance(set_id, str) or not isinstance(offset, int) or offset < 0:
        raise InvalidArgumentError("cursor is not a cursor this tool returned; pass next_cursor unchanged",
                                   field="cursor")
    return set_id, offset


class ResultSets:
    """Stored result sets of the research search (CacheTable, namespace ``search``)."""

    def __init__(self, cache: Cache | None = None) -> None:
        self._cache = cache

    @property
    def cache(self) -> Cache:
        if self._cache is None:
            self._cache = Cache()
        return self._cache

    @staticmethod
    def _key(principal: str, set_id: str) -> str:
        return f"research:{owner(principal)}:{set_id}"

    def save(self, principal: str, set_id: str, payload: dict[str, Any]) -> None:
        self.cache.put(NAMESPACE, self._key(principal, set_id), payload, ttl_s=SET_TTL_S)

    def load(self, principal: str, set_id: str) -> dict[str, Any]:
        """The stored set.

        Raises:
            NotFoundError: expired, or written for another caller.
        """
        payload = self.cache.get(NAMESPACE, self._key(principal, set_id))
        if not isinstance(payload, dict):
            raise NotFoundError("this cursor's result set has expired or belongs to another caller",
                                hint=_SEARCH_AGAIN)
        return payload
