"""Merging records of the same paper field by field, remembering who supplied what and who found it.

``Pool.add`` pairs a record by a shared identifier key first, then by identical normalised title with
consistent year and first author. A field comes from the most trusted source that has it (citation counts:
the highest); identifiers are united. ``found_by`` lists the sources whose *search* returned the paper:
records added to complete metadata or by citation expansion (``finding=False``) never count as another
source agreeing. A preprint and its published version share one slot: the published venue, year and DOI
win, the arXiv id stays among the identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scholar.core.paper_identity import consistent, id_keys, is_preprint, title_key
from scholar.core.records import Paper

# Most trusted first for descriptive fields; arXiv last so a published version's venue and year win.
PRIORITY = ("s2", "openalex", "crossref", "europepmc", "inspire", "arxiv_api", "arxiv")
_RANK = {name: i for i, name in enumerate(PRIORITY)}
_SKIP = frozenset({"sources", "externalIds", "citationCount"})


def _rank(source: str) -> int:
    return _RANK.get(source, len(PRIORITY))


@dataclass
class Candidate:
    """One work in the pool: its merged fields, their providers, the finders and the expansion relations."""

    fields: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, str] = field(default_factory=dict)
    external: dict[str, str] = field(default_factory=dict)
    found_by: set[str] = field(default_factory=set)
    via: set[str] = field(default_factory=set)
    supplied_by: set[str] = field(default_factory=set)
    keys: set[str] = field(default_factory=set)
    titles: set[str] = field(default_factory=set)
    preprint_only: bool = True

    def absorb(self, paper: Paper, source: str) -> None:
        """Merge ``paper`` (from ``source``) into this candidate, field by field."""
        published = not is_preprint(paper)
        for name in type(paper).model_fields:
            if name not in _SKIP:
                self.offer(name, getattr(paper, name), source, published=published)
        self.offer("citationCount", paper.citationCount, source, published=published)
        for name, value in (paper.externalIds or {}).items():
            self.external.setdefault(name, value)
        if paper.paperId:
            self.external.setdefault("S2", paper.paperId)
        self.preprint_only = self.preprint_only and not published
        self.supplied_by.add(source)

    def offer(self, name: str, value: Any, source: str, *, published: bool) -> None:
        """Take one field value unless a more trusted source already gave it (citation counts: the highest)."""
        if value is None or value == [] or value == "":
            return
        current = self.provenance.get(name)
        if name == "citationCount":
            better = current is None or value > self.fields[name]
        else:
            # A published record replaces preprint-only venue/year/date; otherwise the more trusted source wins.
            upgrade = published and self.preprint_only and name in ("venue", "year", "publicationDate", "journal")
            better = current is None or upgrade or _rank(source) < _rank(current)
        if better:
            self.fields[name] = value
            self.provenance[name] = source

    def record(self) -> Paper:
        """The merged record (``sources``: every upstream that supplied a field)."""
        return Paper(
            **{k: v for k, v in self.fields.items()},
            externalIds={k: v for k, v in self.external.items() if k != "S2"} or None,
            sources=sorted(self.supplied_by, key=_rank),
        )


class Pool:
    """Candidates of one search, indexed by identifier key and by normalised title."""

    def __init__(self) -> None:
        self.candidates: list[Candidate] = []
        self._by_key: dict[str, int] = {}
        self._by_title: dict[str, list[int]] = {}
        self._alive: list[bool] = []
        self._sample: dict[int, Paper] = {}

    def add(self, paper: Paper, source: str, *, finding: bool = True, via: str | None = None) -> Candidate:
        """Merge one record into the pool and return its candidate.

        Args:
            paper: the record as a source answered it.
            source: the registry name of that source.
            finding: True when a search returned it (counts in ``found_by``); False for lookups and expansion.
            via: the expansion relation that brought it (``references``, ``citations``, ``recommendations``).
        """
        keys = id_keys(paper)
        matches = sorted({self._by_key[k] for k in keys if k in self._by_key})
        tkey = title_key(paper)
        if not matches and tkey:
            matches = [i for i in self._by_title.get(tkey, []) if self._alive[i] and consistent(self._sample[i], paper)]
            matches = matches[:1]
        if matches:
            index = matches[0]
            for other in matches[1:]:  # the new record proves two candidates are one work
                self._fold(index, other)
        else:
            index = len(self.candidates)
            self.candidates.append(Candidate())
            self._alive.append(True)
            self._sample[index] = paper
        candidate = self.candidates[index]
        candidate.absorb(paper, source)
        if finding:
            candidate.found_by.add(source)
        if via:
            candidate.via.add(via)
        candidate.keys |= keys
        for key in keys:
            self._by_key[key] = index
        if tkey and tkey not in candidate.titles:
            candidate.titles.add(tkey)
            self._by_title.setdefault(tkey, []).append(index)
        if is_preprint(self._sample[index]) and not is_preprint(paper):
            self._sample[index] = paper  # pair later records against the published version
        return candidate

    def _fold(self, into: int, other: int) -> None:
        keep, gone = self.candidates[into], self.candidates[other]
        for name, value in gone.fields.items():
            keep.offer(name, value, gone.provenance[name], published=not gone.preprint_only)
        for name, value in gone.external.items():
            keep.external.setdefault(name, value)
        keep.preprint_only = keep.preprint_only and gone.preprint_only
        keep.supplied_by |= gone.supplied_by
        keep.found_by |= gone.found_by
        keep.via |= gone.via
        keep.keys |= gone.keys
        keep.titles |= gone.titles
        for key in gone.keys:
            self._by_key[key] = into
        for tkey in gone.titles:
            self._by_title.setdefault(tkey, []).append(into)
        self._alive[other] = False

    def alive(self) -> list[Candidate]:
        """The distinct works, in the order they first arrived."""
        return [c for c, alive in zip(self.candidates, self._alive, strict=True) if alive]
