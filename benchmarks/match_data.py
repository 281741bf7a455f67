"""The labelled reference set of the match benchmark, built from recorded responses (never copied into the repo).

Each ``Labelled`` is a reference string with the DOI it names and the record the fake index holds for that DOI.

- ``crossref/works_by_doi_nature_machine_intelligence.json``: the 58 deposited references with a DOI; the string is
  the deposited ``unstructured`` text (real). The index record takes the deposited author, year, journal, volume
  and first page; its title is SYNTHETIC: cut from that string by ``_nature_title`` (the sentence after the
  author list), because the deposit carries none.
- ``crossref/works_by_doi_plos.json``: the 65 deposited references with a DOI and structured fields (article
  title, first author, year, journal, volume, first page; real). The string is RENDERED from them in one of four
  styles (Vancouver, APA, Nature, Harvard; by position).
- ``crossref/works_query_title_rows1.json``: the 55 deposited references with a DOI, which carry only journal,
  volume, first page and year (real); the string is RENDERED as physics journals write them
  ("ACS Nano 8, 10973 (2014)"); the index record has no title (none was deposited).
- Europe PMC search results (``search_cancer_core.json``, ``search_fulltext_reference_query_page1.json``,
  ``search_cancer_page2_pagesize5.json``) and the S2 / OpenAlex records with a DOI: real records; the string is
  RENDERED from the record, and the index holds the record.

Hard cases, all SYNTHETIC and named so: every 6th reference gets a ``synthetic_sibling`` in the index (same title and
authors, three years later, another DOI, listed before the true record: a reprint or a later version), and every 8th
reference is ``absent``: its record is left out of the index, so the only right answer is "no match".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Record:
    """A paper as the fake index holds it (served in Crossref's ``/works`` item shape)."""

    doi: str
    title: str | None = None
    authors: list[tuple[str, str]] = field(default_factory=list)  # (given, family)
    year: int | None = None
    journal: str | None = None
    volume: str | None = None
    page: str | None = None

    def crossref_item(self) -> dict[str, Any]:
        item: dict[str, Any] = {"DOI": self.doi, "type": "journal-article",
                                "author": [{"given": g, "family": f} for g, f in self.authors]}
        if self.title:
            item["title"] = [self.title]
        if self.year:
            item["issued"] = {"date-parts": [[self.year]]}
        if self.journal:
            item["container-title"] = [self.journal]
        if self.volume:
            item["volume"] = self.volume
        if self.page:
            item["page"] = self.page
        return item


@dataclass
class Labelled:
    text: str
    doi: str
    record: Record
    origin: str
    absent: bool = False


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def _split_name(name: str) -> tuple[str, str]:
    """ "AF Arnsten" / "Arnsten, A. F." → (given, family)."""
    if "," in name:
        family, given = (p.strip() for p in name.split(",", 1))
        return given, family
    parts = name.split()
    return " ".join(parts[:-1]), parts[-1] if parts else ""


_NATURE_AUTHORS = re.compile(r"^(?:.*?\bet al\.|(?:[^.]*?,\s(?:[A-Z][a-z]?\.[\s-]?)+(?:,\s|&\s)?)+)\s*")


def _nature_title(text: str) -> str | None:
    """The sentence after a Nature-style author list ("Devlin, J., Chang, M.-W. & Lee, K. <Title>. <Venue> …")."""
    rest = _NATURE_AUTHORS.sub("", text, count=1)
    if rest == text:
        return None
    title = re.split(r"(?<=[a-z0-9?)])\.\s", rest, maxsplit=1)[0].strip()
    return title if len(title.split()) >= 2 else None


def _render(record: Record, style: int) -> str:
    """The citation of ``record`` in one of four styles, without the punctuation of fields it lacks."""
    text = _styled(record, style)
    text = re.sub(r"\s*(?:vol\.|p\.)\s*(?=[,.])", "", text)
    text = re.sub(r"\s*(?:,\s*)+(?=[.,;:)])|\(\s*\)", "", text)
    return re.sub(r"\.\.|\?\.", lambda m: m.group(0)[0], text)


def _styled(record: Record, style: int) -> str:
    given, family = record.authors[0] if record.authors else ("", "")
    initials = "".join(w[0] for w in given.replace(".", " ").replace("-", " ").split())
    more = len(record.authors) > 1
    vol, page, year, title, journal = record.volume or "", record.page or "", record.year, record.title, record.journal
    if style == 0:  # Vancouver
        return f"{family} {initials}{', et al' if more else ''}. {title}. {journal}. {year};{vol}:{page}."
    if style == 1:  # APA
        dotted = " ".join(f"{c}." for c in initials)
        return f"{family}, {dotted}{' et al.' if more else ''} ({year}). {title}. {journal}, {vol}, {page}."
    if style == 2:  # Nature
        dotted = "".join(f"{c}." for c in initials)
        return f"{family}, {dotted}{' et al.' if more else ''} {title}. {journal} {vol}, {page} ({year})."
    return f"{family}{' et al.' if more else ''} {year}, '{title}', {journal}, vol. {vol}, p. {page}."  # Harvard


def _crossref_refs(fixtures: Path, name: str) -> list[dict[str, Any]]:
    message = _json(fixtures / "upstream/crossref" / name)["message"]
    message = message["items"][0] if "items" in message else message
    return [r for r in message.get("reference") or [] if r.get("DOI")]


def _from_reference(ref: dict[str, Any]) -> Record:
    authors = [_split_name(ref["author"])] if ref.get("author") else []
    year = int(ref["year"][:4]) if str(ref.get("year", ""))[:4].isdigit() else None
    return Record(doi=ref["DOI"].lower(), title=ref.get("article-title"), authors=authors, year=year,
                  journal=ref.get("journal-title"), volume=ref.get("volume"), page=ref.get("first-page"))


def _nature(fixtures: Path) -> list[Labelled]:
    out = []
    for ref in _crossref_refs(fixtures, "works_by_doi_nature_machine_intelligence.json"):
        text = ref["unstructured"]
        record = _from_reference(ref)
        record.title = _nature_title(text)
        if not record.authors:
            record.authors = [("", text.split(",", 1)[0].strip())]
        out.append(Labelled(text, record.doi, record, "crossref unstructured (title synthetic)"))
    return out


def _plos(fixtures: Path) -> list[Labelled]:
    out = []
    for i, ref in enumerate(_crossref_refs(fixtures, "works_by_doi_plos.json")):
        record = _from_reference(ref)
        out.append(Labelled(_render(record, i % 4), record.doi, record, "crossref structured, rendered"))
    return out


def _physics(fixtures: Path) -> list[Labelled]:
    out = []
    for ref in _crossref_refs(fixtures, "works_query_title_rows1.json"):
        record = _from_reference(ref)
        if not (record.journal and record.volume and record.page and record.year):
            continue
        text = f"{record.journal} {record.volume}, {record.page} ({record.year})."
        out.append(Labelled(text, record.doi, record, "crossref coordinates only, rendered"))
    return out


def _epmc_record(row: dict[str, Any]) -> Record | None:
    if not (row.get("doi") and row.get("title") and row.get("authorString") and row.get("pubYear")):
        return None
    authors = [_split_name_epmc(n) for n in str(row["authorString"]).rstrip(".").split(",") if n.strip()]
    return Record(doi=str(row["doi"]).lower(), title=str(row["title"]).rstrip("."), authors=authors,
                  year=int(row["pubYear"]), journal=row.get("journalTitle"), volume=row.get("journalVolume"),
                  page=(row.get("pageInfo") or "").split("-")[0] or None)


def _split_name_epmc(name: str) -> tuple[str, str]:
    """ "Smith JA" → ("JA", "Smith")."""
    parts = name.strip().split()
    return (parts[-1], " ".join(parts[:-1])) if len(parts) > 1 else ("", name.strip())


def _records_elsewhere(fixtures: Path) -> list[Record]:
    up = fixtures / "upstream/europepmc"
    out: list[Record] = []
    for name in ("search_cancer_core.json", "search_fulltext_reference_query_page1.json",
                 "search_cancer_page2_pagesize5.json"):
        for row in (_json(up / name).get("resultList") or {}).get("result") or []:
            if (record := _epmc_record(row)) is not None:
                out.append(record)
    s2 = fixtures / "upstream/semantic_scholar"
    for name in ("paper_by_doi_many_fields_pnas.json", "paper_batch_many_fields_with_unknown_id.json"):
        data = _json(s2 / name)
        for row in data if isinstance(data, list) else [data]:
            doi = ((row or {}).get("externalIds") or {}).get("DOI")
            if doi and row.get("title") and row.get("authors") and row.get("year"):
                out.append(Record(doi=doi.lower(), title=row["title"], year=row["year"],
                                  authors=[_split_name(a["name"]) for a in row["authors"]],
                                  journal=(row.get("journal") or {}).get("name") or row.get("venue"),
                                  volume=(row.get("journal") or {}).get("volume")))
    return out


def labelled_set(fixtures: Path) -> list[Labelled]:
    """Every labelled reference, one per DOI, with the hard cases marked (module docstring)."""
    items = _nature(fixtures) + _plos(fixtures) + _physics(fixtures)
    elsewhere = _records_elsewhere(fixtures)
    items += [Labelled(_render(r, i % 4), r.doi, r, "record rendered") for i, r in enumerate(elsewhere)]
    seen: set[str] = set()
    unique = []
    for item in items:
        if item.doi not in seen:
            seen.add(item.doi)
            unique.append(item)
    for i, item in enumerate(unique):
        item.absent = i % 8 == 7
    return unique


def index(labelled: list[Labelled], fixtures: Path) -> list[Record]:
    """The fake index: each present reference's record (after its synthetic sibling, every 6th), plus the works of
    the recorded Crossref answers as distractors."""
    records: list[Record] = []
    for i, item in enumerate(labelled):
        if item.absent:
            continue
        if i % 6 == 5 and item.record.title and item.record.year:
            records.append(Record(doi=f"10.9999/synthetic_sibling.{i}", title=item.record.title,
                                  authors=item.record.authors, year=item.record.year + 3,
                                  journal="Synthetic Reprint Series", volume="1", page="1"))
        records.append(item.record)
    for name in ("works_query_ecology_rows2.json", "works_query_title_rows1.json"):
        for work in _json(fixtures / "upstream/crossref" / name)["message"]["items"]:
            records.append(Record(doi=work["DOI"].lower(), title=(work.get("title") or [None])[0],
                                  authors=[(a.get("given", ""), a.get("family", "")) for a in work.get("author") or []],
                                  year=((work.get("issued") or {}).get("date-parts") or [[None]])[0][0],
                                  journal=(work.get("container-title") or [None])[0], volume=work.get("volume"),
                                  page=work.get("page")))
    return records
