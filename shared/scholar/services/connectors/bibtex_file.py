"""A .bib file kept in step with a collection, and a .bib file read into one (bibtexparser).

Stable citation keys: a LaTeX document cites by key, so a key once written never changes. Before writing, the file
as it is is read and each of its entries is matched to one of our items (by DOI, else arXiv id, else title);
a matched item keeps that entry's key, and only a new item gets a new one (``smith2020deep``, then ``…a``, ``…b``
for a clash with any key already taken). The file is replaced atomically (a temporary file in the same folder,
flushed, then renamed over it), so an editor or a LaTeX run never reads half a file; when nothing changed it is
not touched at all.
"""

from __future__ import annotations

import re
from pathlib import Path

from scholar.core.config import get_settings
from scholar.core.records import Paper
from scholar.services.cite.bib_read import read_bib
from scholar.services.cite.bibtex import to_bibtex
from scholar.services.cite.entry import build_entries, build_entry
from scholar.services.cite.references import from_bibtex, paper_of
from scholar.store.atomic_file import replace_file
from scholar.store.library.models import LibraryItem

__all__ = ["bib_text", "papers_from_bib", "write_atomically"]

_SPACE = re.compile(r"\W+")
# A .bib file being kept in step is read whole before it is rewritten; past this many entries it is no file of ours.
MAX_BIB_ENTRIES = 100_000


def _title_key(title: str | None) -> str:
    return _SPACE.sub(" ", (title or "").replace("{", "").replace("}", "")).strip().lower()


def _match_keys(entries: list[dict[str, str]]) -> dict[str, str]:
    """``doi:…`` / ``arxiv:…`` / ``title:…`` → the key an existing entry holds."""
    keys: dict[str, str] = {}
    for entry in entries:
        key = entry.get("ID", "")
        for name, value in (("doi", entry.get("doi", "").lower()), ("arxiv", entry.get("eprint", "")),
                            ("title", _title_key(entry.get("title")))):
            if value:
                keys.setdefault(f"{name}:{value}", key)
    return keys


def _parse(text: str | bytes, where: str) -> list[dict[str, str]]:
    return read_bib(text, where=where, max_entries=MAX_BIB_ENTRIES)


def bib_text(items: list[LibraryItem], existing: str | bytes | None) -> tuple[str, int]:
    """The .bib text of ``items`` keeping the keys ``existing`` gave them; and how many keys are new."""
    papers = [Paper.model_validate(i.paper) for i in items]
    known = _match_keys(_parse(existing, "the .bib file being updated")) if existing else {}
    taken: set[str] = set()
    entries = []
    new = 0
    for paper in papers:
        entry = build_entry(paper)
        ext = paper.externalIds or {}
        candidates = (f"doi:{(ext.get('DOI') or '').lower()}", f"arxiv:{ext.get('ArXiv') or ''}",
                      f"title:{_title_key(paper.title)}")
        kept = next((known[c] for c in candidates if c in known and known[c] not in taken), None)
        if kept is None:
            new += 1
            (base,) = [e.key for e in build_entries([paper])]
            kept = base
            suffix = 0
            while kept in taken or kept in known.values():
                kept = f"{base}{chr(ord('a') + suffix % 26)}{'' if suffix < 26 else suffix}"
                suffix += 1
        entry.key = kept
        taken.add(kept)
        entries.append(entry)
    return to_bibtex(entries), new


def write_atomically(path: Path, text: str) -> bool:
    """Replace ``path`` with ``text`` in one rename; False (and nothing written) when it already holds it."""
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    data = text.encode("utf-8")
    replace_file(path, lambda out: out.write(data), prefix=f".{path.name}.")
    return True


def papers_from_bib(text: str | bytes, where: str = "the .bib file") -> list[Paper]:
    """The papers of a .bib file (title, authors, year, DOI, arXiv id, journal, volume, pages), one per entry.

    Bytes are decoded by ``scholar.services.cite.bib_read`` (UTF-8, else Windows-1252, else refused).

    Raises:
        InvalidArgumentError: not BibTeX text, or an undefined ``@string`` macro (the file and the rule named).
        TooLargeError: more entries than a library holds (``SCHOLAR_LIBRARY_MAX_ITEMS``), refused before any write.
    """
    entries = read_bib(text, where=where, max_entries=get_settings().library_max_items)
    return [paper_of(from_bibtex(entry), "bibtex") for entry in entries]
