"""The field sets of seed 000 and the Semantic Scholar fields each one asks for."""

from __future__ import annotations

from typing import Literal

FieldSet = Literal["compact", "standard", "full"]

COMPACT = ("paperId", "title", "year", "venue", "citationCount")
STANDARD = (*COMPACT, "authors", "externalIds", "abstract")
FULL = (
    *STANDARD,
    "tldr",
    "openAccessPdf",
    "fieldsOfStudy",
    "referenceCount",
    "influentialCitationCount",
    "isOpenAccess",
    "publicationDate",
    "publicationTypes",
    "journal",
    "url",
)
FIELDS: dict[str, tuple[str, ...]] = {"compact": COMPACT, "standard": STANDARD, "full": FULL}
# Bulk search cannot return tldr (S2 rejects it there).
BULK_UNSUPPORTED = frozenset({"tldr"})

# In lists, long abstracts and author lists are shortened unless the full set is asked for.
LIST_ABSTRACT_CHARS = 500
LIST_AUTHORS = 5
