"""Citation export: one ``Entry`` per paper (entry.py), written as BibTeX, CSL-JSON or RIS."""

from scholar.cite.bibtex import to_bibtex
from scholar.cite.csl import to_csl
from scholar.cite.entry import Entry, build_entries
from scholar.cite.ris import to_ris

__all__ = ["Entry", "build_entries", "to_bibtex", "to_csl", "to_ris"]
