"""Recognising the same paper: normalised identifier keys, then title + year + first-author surname.

Keys are ``kind:value`` as scholar.core.ids normalises them, so every form of one identifier meets:
DOIs lower-case without prefix or URL, the arXiv DataCite alias ``10.48550/arXiv.<id>`` as the arXiv id,
arXiv ids without version, PMIDs as integers, PMCIDs upper-case, S2 ids lower-case, OpenAlex ids upper-case.
"""

from __future__ import annotations

import re
import unicodedata

from scholar.core.ids import record_keys
from scholar.core.records import Paper

_NON_WORD = re.compile(r"[^a-z0-9]+")
_INITIALS = re.compile(r"^[A-Z]{1,3}\.?$")


def id_keys(paper: Paper) -> set[str]:
    """Every normalised identifier key of a record (``doi:…``, ``arxiv:…``, ``pmid:…``, ``s2:…`` …)."""
    return record_keys(paper.paperId, paper.externalIds or {})


def fold(text: str) -> str:
    """Lower-case ASCII letters and digits separated by single spaces (accents and punctuation dropped)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(_NON_WORD.sub(" ", ascii_text.lower()).split())


def title_key(paper: Paper) -> str | None:
    """The normalised title, or None when it is too short to pair safely (``Introduction``, ``0``)."""
    key = fold(paper.title or "")
    return key if len(key.split()) >= 3 else None


def surname(name: str | None) -> str | None:
    """The family name of ``Ashish Vaswani``, ``Vaswani, A.`` or ``Schoenfeld JD``, folded."""
    if not name or not name.strip():
        return None
    if "," in name:
        return fold(name.split(",", 1)[0]) or None
    parts = name.split()
    if len(parts) > 1 and _INITIALS.match(parts[-1]):  # PubMed style: surname first, initials last
        return fold(parts[0]) or None
    return fold(parts[-1]) or None


def first_surname(paper: Paper) -> str | None:
    return surname(paper.authors[0].name) if paper.authors else None


def is_preprint(paper: Paper) -> bool:
    return "preprint" in (paper.publicationTypes or []) or (paper.venue or "").lower() == "arxiv"


def consistent(a: Paper, b: Paper) -> bool:
    """Whether two records with the same normalised title can be one work: years and first authors agree.

    A preprint may precede its published version by up to two years; otherwise years differ by one at most.
    """
    if a.year is not None and b.year is not None:
        slack = 2 if is_preprint(a) or is_preprint(b) else 1
        if abs(a.year - b.year) > slack:
            return False
    first_a, first_b = first_surname(a), first_surname(b)
    return first_a is None or first_b is None or first_a == first_b
