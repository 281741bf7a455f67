"""The check a bibliographic match must pass: pure, no I/O (scholar.services.paper_lookup.match asks the sources).

A candidate record is accepted for a reference only when one of two checks passes, stated in ``Verdict.check``:

``title``: the candidate's title, normalised (accents, case, markup and punctuation dropped), has a similarity
    ≥ ``TITLE_MIN`` with the given title, or appears with that similarity inside the citation text; the year, where
    one is given (or written in the text), is within one of the candidate's; the first author's surname, where
    authors are given, is among them (in a citation text: appears in it, unless the text is the title alone).
    A title under ``SHORT_TITLE_WORDS`` words ("Deep learning") needs both the year and the author confirmed.
``venue+volume+page+year``: for a citation that carries no title ("ACS Nano 8, 10973 (2014)"), the candidate's
    volume and first page both appear in the text, its year is within one of a year in it and its journal's full
    or short title (abbreviations read as word prefixes) matches the text.

The non-obvious constraint: a wrong paper is worse than none, so an unknown never counts as agreement where it
would be the only evidence, and a contradiction (year off by two, another first author) rejects outright.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from scholar.core.records import Paper

TITLE_MIN = 0.9
SHORT_TITLE_WORDS = 4
_YEAR_RE = re.compile(r"(?<!\d)(1[6-9]\d\d|20\d\d)(?!\d)")
_TAG_RE = re.compile(r"<[^>]+>")
_NON_WORD_RE = re.compile(r"[^0-9a-z]+")
_INITIALS_RE = re.compile(r"^(?:[A-Z]\.?[- ]?){1,3}$")


def normalise(text: str | None) -> str:
    """Lowercase ASCII words separated by one space: accents, markup and punctuation dropped."""
    if not text:
        return ""
    plain = unicodedata.normalize("NFKD", _TAG_RE.sub(" ", text)).encode("ascii", "ignore").decode()
    return _NON_WORD_RE.sub(" ", plain.lower()).strip()


def years_in(text: str) -> set[int]:
    """Every plausible publication year written in ``text``."""
    return {int(y) for y in _YEAR_RE.findall(text)}


def surname(name: str) -> str:
    """The normalised surname of a person's name ("Vaswani, A." / "Ashish Vaswani" / "A Vaswani" → vaswani)."""
    if "," in name:
        head = name.split(",", 1)[0]
    else:
        words = [w for w in name.split() if not _INITIALS_RE.match(w)]
        head = words[-1] if words else name
    words = normalise(head).split()
    return words[-1] if words else ""


@dataclass(frozen=True)
class Reference:
    """What a caller has in hand: a citation text, or a title with optional authors, year and venue."""

    text: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None

    def given_years(self) -> set[int]:
        if self.year is not None:
            return {self.year}
        return years_in(self.text or "")

    def query(self) -> str:
        """The free text to send to a bibliographic search."""
        if not self.title:
            return self.text or ""
        parts = [self.title, *self.authors[:1], str(self.year or ""), self.venue or ""]
        return " ".join(p for p in parts if p)


@dataclass
class Verdict:
    """How one candidate fares against a reference: accepted or not, by which check, and what disagrees."""

    accepted: bool
    check: str
    confidence: float
    title_similarity: float
    disagreements: dict[str, str] = field(default_factory=dict)


def _similarity(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio() if a and b else 0.0


def title_in_text(title: str, text: str) -> float:
    """The best similarity of the normalised ``title`` with a stretch of the normalised ``text`` of about its length.

    Only stretches that begin with one of the title's first words are compared, and only when most of the title's
    words are in the text at all (a similarity ≥ ``TITLE_MIN`` needs them): a list of 100 references stays cheap.
    """
    if not title or not text:
        return 0.0
    if title in text:
        return 1.0
    wanted, words = title.split(), text.split()
    coverage = len(set(wanted) & set(words)) / len(set(wanted))
    if coverage < 0.6:
        return round(coverage * 0.8, 3)  # below the bar, in proportion
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(title)
    anchors, size, best = set(wanted[:3]), len(wanted), 0.0
    for start, word in enumerate(words):
        if word not in anchors:
            continue
        for width in (size - 1, size, size + 1):
            if width > 0 and start + width <= len(words):
                matcher.set_seq1(" ".join(words[start : start + width]))
                if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best:
                    best = max(best, matcher.ratio())
    return best


def _title_score(ref: Reference, cand_title: str) -> tuple[float, bool]:
    """(similarity, whether the reference is just the title)."""
    if ref.title:
        return _similarity(normalise(ref.title), cand_title), True
    text = normalise(ref.text)
    whole = _similarity(text, cand_title)
    if whole >= TITLE_MIN:
        return whole, True
    return title_in_text(cand_title, text), False


def _first_surname(paper: Paper) -> str:
    names = [a.name for a in paper.authors or [] if a.name]
    return surname(names[0]) if names else ""


def _venue_matches(venue: str, text_words: list[str]) -> bool:
    """Each word of ``venue`` (stop words aside) starts a word of the text, in order: "Chem. Soc. Rev." reads as
    "Chemical Society Reviews" and the full name as itself."""
    wanted = [w for w in normalise(venue).split() if w not in ("of", "the", "and", "for", "in", "on")]
    if not wanted:
        return False
    position = 0
    for word in wanted:
        while position < len(text_words) and not (text_words[position].startswith(word)
                                                  or word.startswith(text_words[position])):
            position += 1
        if position == len(text_words):
            return False
        position += 1
    return True


def _coordinates(ref: Reference, paper: Paper, venues: tuple[str, ...]) -> bool:
    """The ``venue+volume+page+year`` check for a citation without a title."""
    journal = paper.journal
    if not ref.text or journal is None or not journal.volume or not journal.pages or paper.year is None:
        return False
    words = normalise(ref.text).split()
    first_page = normalise(journal.pages.split("-")[0]).replace(" ", "")
    if normalise(journal.volume) not in words or first_page not in words:
        return False
    if not any(abs(y - paper.year) <= 1 for y in ref.given_years()):
        return False
    return any(_venue_matches(v, words) for v in venues if v)


def judge(ref: Reference, paper: Paper, venues: tuple[str, ...] = ()) -> Verdict:
    """Check ``paper`` against ``ref`` (module docstring); ``venues`` adds the journal's other names."""
    cand_title = normalise(paper.title)
    similarity, title_only = _title_score(ref, cand_title) if cand_title else (0.0, False)
    disagreements: dict[str, str] = {}
    years = ref.given_years()
    year_ok: bool | None = None
    if years and paper.year is not None:
        year_ok = any(abs(y - paper.year) <= 1 for y in years)
        if not any(y == paper.year for y in years):
            disagreements["year"] = f"given {'/'.join(map(str, sorted(years)))}, record {paper.year}"
    first = _first_surname(paper)
    author_ok: bool | None = None
    if first and ref.authors:
        author_ok = first in {surname(a) for a in ref.authors}
    elif first and ref.text and not title_only:
        author_ok = first in normalise(ref.text).split()
    if author_ok is False:
        disagreements["authors"] = f"record's first author {first!r} is not in the reference"
    if ref.venue and paper.venue and not _venue_matches(ref.venue, normalise(paper.venue).split()):
        disagreements["venue"] = f"given {ref.venue!r}, record {paper.venue!r}"
    if TITLE_MIN <= similarity < 0.98:
        disagreements["title"] = f"record's title {paper.title!r} differs slightly ({similarity:.2f})"
    short = len(cand_title.split()) < SHORT_TITLE_WORDS
    contradicted = year_ok is False or author_ok is False
    confirmed = year_ok is True and author_ok is True
    if similarity >= TITLE_MIN and not contradicted and (confirmed or not short):
        confidence = similarity * (1.0 if year_ok else 0.95) * (1.0 if author_ok else 0.95)
        return Verdict(True, "title", round(confidence, 3), round(similarity, 3), disagreements)
    if not ref.title and similarity < TITLE_MIN and _coordinates(ref, paper, (paper.venue or "", *venues)):
        confidence = 0.9 if author_ok else 0.85
        disagreements.pop("title", None)
        return Verdict(True, "venue+volume+page+year", confidence, round(similarity, 3), disagreements)
    return Verdict(False, "none", round(similarity * (0.5 if contradicted else 0.8), 3), round(similarity, 3),
                   disagreements)
