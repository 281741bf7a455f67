"""A collection written into an Obsidian vault folder: one literature note per item, ``@citekey.md``.

Each note: YAML frontmatter with the conventional literature-note properties (citekey, title, authors, year, doi,
tags, aliases, url, …), the title, the abstract, our notes, a link to the kept Markdown full text, then the marker
line. The non-obvious constraint: everything below the marker is the user's and is carried over byte for byte;
only the part above it is ours, and a note is rewritten only when that part changed. A note is found again by its
``scholar-id`` property, so a renamed title never makes a second note, and its citekey (the file name) never
changes once written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from scholar.core.records import Paper
from scholar.services.cite.entry import build_entries
from scholar.services.connectors.bibtex_file import write_atomically
from scholar.services.connectors.paths import inside, segment
from scholar.store.library.models import LibraryItem

__all__ = ["MARKER", "VaultReport", "write_vault"]

MARKER = "%% scholar-mcp: the part above is rewritten on every sync; write below this line, it is kept %%"
_ID_LINE = re.compile(r"^scholar-id:\s*(lib_[0-9a-f]{20})\s*$", re.MULTILINE)


@dataclass
class VaultReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def _existing(folder: Path) -> dict[str, Path]:
    """Our item id → its note in the folder (read from each note's ``scholar-id`` property)."""
    found: dict[str, Path] = {}
    for path in folder.glob("@*.md"):
        head = path.read_text(encoding="utf-8").split(MARKER, 1)[0]
        match = _ID_LINE.search(head)
        if match:
            found[match.group(1)] = path
    return found


def _ours(item: LibraryItem, citekey: str) -> str:
    paper = Paper.model_validate(item.paper)
    ext = paper.externalIds or {}
    properties = {
        "citekey": citekey,
        "title": paper.title or "",
        "authors": [a.name for a in paper.authors or [] if a.name],
        "year": paper.year,
        "doi": ext.get("DOI"),
        "arxiv": ext.get("ArXiv"),
        "journal": paper.journal.name if paper.journal and paper.journal.name else paper.venue,
        "url": paper.landing_url(),
        "tags": ["literature-note", *item.tags],
        "aliases": [paper.title] if paper.title else [],
        "collection": item.collection,
        "scholar-id": item.item_id,
    }
    front = yaml.safe_dump({k: v for k, v in properties.items() if v not in (None, "", [])}, sort_keys=False,
                           allow_unicode=True, width=1000)
    sections = (("Abstract", paper.abstract), ("Notes", item.notes),
                ("Full text", f"[Kept Markdown]({item.md_path})" if item.md_path else None))
    parts = [f"---\n{front}---", f"# {paper.title or citekey}",
             *(f"## {heading}\n\n{text.strip()}" for heading, text in sections if text)]
    return "\n\n".join(parts) + "\n\n" + MARKER + "\n"


def _citekey(paper: Paper, taken: set[str]) -> str:
    (base,) = [e.key for e in build_entries([paper])]
    key, suffix = base, 0
    while key in taken:
        key = f"{base}{chr(ord('a') + suffix % 26)}{'' if suffix < 26 else suffix}"
        suffix += 1
    return key


def write_vault(items: list[LibraryItem], folder: Path, *, dry_run: bool = False) -> VaultReport:
    """Write one note per item into ``folder``; the user's part of each note below the marker is kept.

    ``dry_run`` reports what would be created or updated and writes nothing.
    """
    if not dry_run:
        folder.mkdir(parents=True, exist_ok=True)
    notes = _existing(folder)
    taken = {p.stem.removeprefix("@") for p in folder.glob("@*.md")}
    report = VaultReport()
    for item in items:
        path = notes.get(item.item_id)
        if path is None:
            citekey = _citekey(Paper.model_validate(item.paper), taken)
            taken.add(citekey)
            path = folder / f"@{segment(citekey)}.md"
        path = inside(folder, path.name, field="citekey")  # a note, or a link planted in its place, stays in
        old = path.read_text(encoding="utf-8") if path.exists() else None
        # A note whose marker the user removed keeps all of its old text below ours: nothing of theirs is lost.
        users = "" if old is None else old.split(MARKER, 1)[1].removeprefix("\n") if MARKER in old else old
        text = _ours(item, path.stem.removeprefix("@")) + users
        if old == text:
            report.unchanged.append(path.name)
            continue
        (report.created if old is None else report.updated).append(path.name)
        if not dry_run:
            write_atomically(path, text)
    return report
