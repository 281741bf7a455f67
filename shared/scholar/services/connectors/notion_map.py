"""A library item as a Notion database page and back: its fields as properties, our notes as the page's blocks.

    our field            Notion property     type            back into our item
    paper title          (the title one)     title           title
    authors              Authors             rich_text       authors, split on "; "
    year                 Year                number          year
    DOI / arXiv id       DOI / arXiv         rich_text       externalIds
    journal or venue     Venue               rich_text       venue (and the journal's name)
    landing URL          URL                 url             url
    tags                 Tags                multi_select    tags (in our tag grammar)
    collection           Collection          select          (a pull's own collection)
    item id              Scholar ID          rich_text       how a page is found again
    notes                the page's blocks   paragraphs      notes

The non-obvious constraint: a sync must tell "changed on our side" from "changed in Notion" without trusting
Notion's clock (``last_edited_time`` is rounded down to the minute), so both sides are compared by content:
``Fields`` is the one canonical form, built from an item (``fields_of_item``) or read from a page
(``fields_of_page``), and its ``digest()`` is what a link remembers. Notes compare as ``canonical_notes``: the
paragraphs, stripped, one blank line apart, whichever side they were read from.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from scholar.core.records import Author, Journal, Paper
from scholar.services.connectors.zotero_map import digest
from scholar.sources.notion import TEXT_MAX
from scholar.store.library.models import ITEM_ID_PATTERN, LibraryItem

__all__ = ["COLLECTION", "SCHEMA", "SCHOLAR_ID", "Fields", "blocks_of_notes", "canonical_notes", "fields_of_item",
           "fields_of_page", "is_text_block", "notes_of_blocks", "paper_from_fields", "to_properties"]

SCHOLAR_ID = "Scholar ID"
COLLECTION = "Collection"
# The properties a push adds to a database that lacks them (name → Notion's property schema).
SCHEMA: dict[str, dict[str, Any]] = {
    "Authors": {"rich_text": {}}, "Year": {"number": {"format": "number"}}, "DOI": {"rich_text": {}},
    "arXiv": {"rich_text": {}}, "Venue": {"rich_text": {}}, "URL": {"url": {}}, "Tags": {"multi_select": {}},
    COLLECTION: {"select": {}}, SCHOLAR_ID: {"rich_text": {}},
}
_AUTHORS = "; "
_ITEM_ID = re.compile(ITEM_ID_PATTERN)
# Block types whose content is rich text (read back as a paragraph of our notes).
_TEXT_BLOCKS = frozenset({"paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item",
                          "numbered_list_item", "quote", "to_do", "toggle", "callout", "code"})


@dataclass(frozen=True)
class Fields:
    """The fields a page carries, in one canonical form on both sides."""

    title: str = ""
    authors: str = ""
    year: int | None = None
    doi: str = ""
    arxiv: str = ""
    venue: str = ""
    url: str | None = None
    tags: tuple[str, ...] = ()
    collection: str = ""
    scholar_id: str = ""

    def digest(self) -> str:
        return digest(asdict(self))


def fields_of_item(item: LibraryItem) -> Fields:
    paper = Paper.model_validate(item.paper)
    ext = paper.externalIds or {}
    return Fields(title=paper.title or "", authors=_AUTHORS.join(a.name for a in paper.authors or [] if a.name),
                  year=paper.year, doi=ext.get("DOI", ""), arxiv=ext.get("ArXiv", ""),
                  venue=(paper.journal.name if paper.journal else None) or paper.venue or "", url=paper.landing_url(),
                  tags=tuple(item.tags), collection=item.collection, scholar_id=item.item_id)


def _rich(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": {"content": text[i:i + TEXT_MAX]}} for i in range(0, len(text), TEXT_MAX)]


def to_properties(fields: Fields, title_property: str) -> dict[str, Any]:
    """The ``properties`` of a page create or update request (Notion's page property values)."""
    return {
        title_property: {"title": _rich(fields.title)}, "Authors": {"rich_text": _rich(fields.authors)},
        "Year": {"number": fields.year}, "DOI": {"rich_text": _rich(fields.doi)},
        "arXiv": {"rich_text": _rich(fields.arxiv)}, "Venue": {"rich_text": _rich(fields.venue)},
        "URL": {"url": fields.url}, "Tags": {"multi_select": [{"name": t} for t in fields.tags]},
        COLLECTION: {"select": {"name": fields.collection} if fields.collection else None},
        SCHOLAR_ID: {"rich_text": _rich(fields.scholar_id)},
    }


def _text(parts: list[dict[str, Any]] | None) -> str:
    """The text of rich text objects (``plain_text`` as Notion answers, ``text.content`` as it is sent)."""
    return "".join(p.get("plain_text") or (p.get("text") or {}).get("content", "") for p in parts or [])


def _plain(value: dict[str, Any] | None) -> str:
    kind = (value or {}).get("type")
    return _text((value or {}).get(kind) if kind in ("title", "rich_text") else None)


def fields_of_page(page: dict[str, Any]) -> Fields:
    """The canonical fields of a page as Notion answers it (a property the database lacks reads as empty)."""
    props: dict[str, Any] = page.get("properties") or {}
    title = next((p for p in props.values() if p.get("type") == "title"), None)
    year = (props.get("Year") or {}).get("number")
    tags = (props.get("Tags") or {}).get("multi_select") or []
    collection = (props.get(COLLECTION) or {}).get("select") or {}
    scholar_id = _plain(props.get(SCHOLAR_ID)).strip()
    return Fields(title=_plain(title), authors=_plain(props.get("Authors")),
                  year=int(year) if isinstance(year, int | float) and float(year).is_integer() else None,
                  doi=_plain(props.get("DOI")).strip(), arxiv=_plain(props.get("arXiv")).strip(),
                  venue=_plain(props.get("Venue")), url=(props.get("URL") or {}).get("url") or None,
                  tags=tuple(t["name"] for t in tags), collection=collection.get("name", ""),
                  scholar_id=scholar_id if _ITEM_ID.fullmatch(scholar_id) else "")


def paper_from_fields(fields: Fields, base: Paper | None = None) -> Paper:
    """Our paper record with a page's fields on top of ``base`` (what we knew before); empty fields are cleared."""
    record = (base or Paper()).model_copy(deep=True)
    ext = dict(record.externalIds or {})
    for name, value in (("DOI", fields.doi), ("ArXiv", fields.arxiv)):
        if value:
            ext[name] = value
        else:
            ext.pop(name, None)
    authors = [Author(name=n.strip()) for n in fields.authors.split(";") if n.strip()]
    journal = record.journal.model_copy(update={"name": fields.venue or None}) if record.journal else (
        Journal(name=fields.venue) if fields.venue else None)
    record = record.model_copy(update={
        "title": fields.title or None, "authors": authors or None, "year": fields.year, "externalIds": ext or None,
        "venue": fields.venue or None, "journal": journal})
    if fields.url != record.landing_url():  # a link of their own (the DOI's or arXiv's is ours to derive)
        record.url = fields.url
    if "notion" not in record.sources:
        record.sources = [*record.sources, "notion"]
    return record


def canonical_notes(text: str | None) -> str:
    """Notes as paragraphs, stripped, one blank line apart (the form both sides are compared in)."""
    return "\n\n".join(p.strip() for p in (text or "").split("\n\n") if p.strip())


def blocks_of_notes(text: str | None) -> list[dict[str, Any]]:
    """Our notes as paragraph blocks, one per paragraph (Notion's block objects, for a create or an append)."""
    return [{"object": "block", "type": "paragraph", "paragraph": {"rich_text": _rich(p)}}
            for p in canonical_notes(text).split("\n\n") if p]


def is_text_block(block: dict[str, Any]) -> bool:
    """Whether a block holds text (a paragraph of our notes); images, embeds and the like do not."""
    return block.get("type") in _TEXT_BLOCKS


def notes_of_blocks(blocks: list[dict[str, Any]]) -> str:
    """A page's blocks back as our notes: the text of each block with text, one paragraph each."""
    texts = [_text((block.get(block["type"]) or {}).get("rich_text")) for block in blocks if is_text_block(block)]
    return canonical_notes("\n\n".join(texts))
