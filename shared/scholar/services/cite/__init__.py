"""Citation export: one ``Entry`` per paper (entry.py), written as BibTeX, CSL-JSON or RIS."""

from scholar.services.cite.bibtex import to_bibtex
from scholar.services.cite.csl import to_csl
from scholar.services.cite.entry import Entry, build_entries
from scholar.services.cite.ris import to_ris

__all__ = ["Entry", "build_entries", "to_bibtex", "to_csl", "to_ris"]
