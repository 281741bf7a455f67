"""A standard the synced catalogue does not hold, asked of its body's source directly (seed 001).

The catalogue is a snapshot: an excerpt, a sync that failed, a document published since. For the IETF series (RFC,
BCP, STD, FYI) each document has its own data file in relaton-data-ietf (``data/RFC9000.yaml``), so one request
answers whether it exists; the record is marked as read from the source, not the catalogue. Other bodies' files
are named by rules the identifier does not fix (editions, parts, amendments): they are left to the catalogue.
"""

from __future__ import annotations

import re

from scholar.core.errors import NotFoundError, RateLimitedError, ScholarError
from scholar.families.standards.loaders.relaton import load_relaton
from scholar.families.standards.records import StandardRecord
from scholar.sources import relaton

_IETF = re.compile(r"^\s*(RFC|BCP|STD|FYI)[\s-]*0*([1-9][0-9]{0,4})\s*$", re.IGNORECASE)


def source_path(raw: str) -> tuple[str, str] | None:
    """(body, data file) of an identifier whose source has one file per document; None for any other."""
    found = _IETF.match(raw)
    if found is None:
        return None
    series, number = found.group(1).upper(), int(found.group(2))
    return "IETF", f"data/{series}{number:04d}.yaml"


async def from_source(raw: str) -> tuple[StandardRecord | None, str | None]:
    """(the record its source holds, or None; a warning when the source could not say).

    A 404 means the source has no such document: (None, None). A failure or throttling is never read as "no such
    standard": (None, the reason).
    """
    where = source_path(raw)
    if where is None:
        return None, None
    body, path = where
    try:
        data = await relaton.fetch_document(body, path)
    except NotFoundError:
        return None, None
    except RateLimitedError as err:
        return None, f"{body}'s source ({relaton.SOURCE}) is throttling us ({err.message}); retry shortly"
    except ScholarError as err:
        return None, f"{body}'s source ({relaton.SOURCE}) did not answer: {err.message}"
    record = load_relaton(data, body)
    return record, None
