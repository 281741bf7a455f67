"""What of a library item the index reads: each field's text, its passages, and the text its meaning vector reads."""

from __future__ import annotations

import hashlib

from scholar.services.fulltext.artifacts import md_key
from scholar.store.library.bounds import MAX_ABSTRACT_CHARS, MAX_RECORD_CHARS, MAX_TITLE_CHARS
from scholar.store.library.models import MAX_NOTES_CHARS, LibraryItem

FIELDS = ("title", "authors", "abstract", "notes", "tags", "body")
MAX_BODY_CHARS = 400_000
# What of each field is indexed: the stored bounds (an item written before they existed is cut to them).
INDEXED_CHARS = {"title": MAX_TITLE_CHARS, "authors": MAX_RECORD_CHARS, "abstract": MAX_ABSTRACT_CHARS,
                 "notes": MAX_NOTES_CHARS, "tags": 5_000, "body": MAX_BODY_CHARS}
PASSAGE_CHARS = 1_000


def body_key_of(item: LibraryItem) -> str | None:
    """The Markdown the item's body comes from: its ``md_path``, else that of its newest PDF (built-in converter)."""
    if item.md_path:
        return item.md_path
    return md_key(item.pdfs[-1].sha256, "builtin") if item.pdfs else None


def text_fields(item: LibraryItem, body: str | None) -> dict[str, str]:
    """The indexed text of each field (cut to ``INDEXED_CHARS``)."""
    paper = item.paper
    authors = [a.get("name") or "" for a in paper.get("authors") or [] if isinstance(a, dict)]
    text = {
        "title": paper.get("title") or "",
        "authors": " ; ".join(a for a in authors if isinstance(a, str) and a),
        "abstract": paper.get("abstract") or paper.get("tldr") or "",
        "notes": item.notes or "",
        "tags": " ".join(item.tags),
        "body": body or "",
    }
    return {name: str(value)[:INDEXED_CHARS[name]] for name, value in text.items()}


def meaning_text(text: dict[str, str]) -> tuple[str, str]:
    """What the semantic model reads of an item (its title and abstract, as search ranks papers) and its digest:
    an item whose digest is unchanged keeps its vector."""
    meaning = f"{text['title']}. {text['abstract']}"
    return meaning, hashlib.sha256(meaning.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def pieces(text: str, size: int = PASSAGE_CHARS) -> list[str]:
    """``text`` cut into consecutive pieces of at most ``size`` characters; ``"".join(pieces(t)) == t``.

    A cut falls on whitespace in the last fifth of a piece where there is some, so words stay whole.
    """
    out: list[str] = []
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            cut = max(text.rfind(c, start + size * 4 // 5, end) for c in " \n\t")
            end = cut + 1 if cut >= 0 else end
        out.append(text[start:end])
        start = end
    return out
