"""The paper whose references or citations are read: every identifier of it the sources can be asked by."""

from __future__ import annotations

from dataclasses import dataclass, field

from scholar.core.ids import InvalidIdError, PaperId, parse_paper_id, record_keys
from scholar.core.records import Paper

# The identifier kinds a graph source can start from (``kind`` as scholar.core.ids normalises it).
KINDS = ("doi", "arxiv", "pmid", "pmcid", "openalex", "inspire")


@dataclass
class Seed:
    """One paper: its S2 form (when S2 can be asked) and its normalised identifiers by kind."""

    s2_key: str | None = None
    ids: dict[str, str] = field(default_factory=dict)
    known: bool = False  # ``ids`` are all a record holds (no need to ask S2 for more)

    def add(self, keys: set[str]) -> None:
        """Learn identifier keys (``doi:…``, ``pmid:…`` …); a kind already known keeps its value."""
        for key in keys:
            kind, _, value = key.partition(":")
            if kind in KINDS and value:
                self.ids.setdefault(kind, value)

    def learn(self, paper: Paper) -> None:
        """Learn the identifiers a record of this paper carries."""
        self.add(record_keys(None, paper.externalIds or {}))

    @property
    def doi(self) -> str | None:
        """The DOI to ask DOI-keyed sources for (an arXiv paper's DataCite DOI when it has no other)."""
        if "doi" in self.ids:
            return self.ids["doi"]
        return f"10.48550/arxiv.{self.ids['arxiv']}" if "arxiv" in self.ids else None


def seed_of(raw: str, s2_key: str | None) -> Seed:
    """The seed of an identifier a caller gave (any form) and its S2 form."""
    seed = Seed(s2_key=s2_key)
    for text in (raw, s2_key or ""):
        try:
            pid: PaperId = parse_paper_id(text)
        except InvalidIdError:
            continue
        seed.add({pid.cache_key()})
    return seed
