"""Mapping Open Library models to book records (pure; no I/O)."""

from __future__ import annotations

from scholar.families.books.models import Book, EditionSummary
from scholar.sources.openlibrary import Edition, SearchDoc, Work, cover_url, isbn_pair, year_of

WORLDCAT = "https://www.worldcat.org/isbn"


def worldcat_url(isbn13: str | None) -> str | None:
    return f"{WORLDCAT}/{isbn13}" if isbn13 else None


def from_search_doc(doc: SearchDoc) -> Book:
    """A search or subject hit as a book; edition-level fields only from the doc's one edition."""
    ed = doc.edition
    isbn10, isbn13 = isbn_pair(ed.isbns) if ed else (None, None)
    cover = (ed.cover_id if ed else None) or doc.cover_id
    return Book(
        title=doc.title,
        subtitle=doc.subtitle,
        authors=doc.authors,
        publisher=ed.publishers[0] if ed and ed.publishers else None,
        year=(ed.publish_year if ed and ed.publish_year else None) or doc.first_publish_year,
        first_publish_year=doc.first_publish_year,
        isbn_10=isbn10,
        isbn_13=isbn13,
        openlibrary_work_id=doc.work_id,
        openlibrary_edition_id=ed.id if ed else None,
        edition_count=doc.edition_count,
        cover_url=cover_url(cover),
        worldcat_url=worldcat_url(isbn13),
        subjects=doc.subjects,
        page_count=doc.page_count_median,
        sources=["openlibrary"],
    )


def from_edition(
    edition: Edition,
    work: Work | None,
    authors: list[str],
    *,
    isbn: str | None = None,
    edition_count: int | None = None,
    about_work: bool = False,
) -> Book:
    """An edition (with its work for description, subjects and authors) as a book.

    Args:
        edition: the edition every edition-level field comes from.
        work: its work, when known.
        authors: resolved author names.
        isbn: the ISBN the caller asked for (it belongs to this edition, so it is the one shown).
        edition_count: editions of the work, when known.
        about_work: the caller asked for the work, so its description wins over the edition's blurb.
    """
    texts = [work.description if work else None, edition.description]
    isbn10, isbn13 = isbn_pair(edition.isbn_13 + edition.isbn_10, prefer=isbn)
    # The edition's own cover only: another edition's picture would not show this edition.
    cover = edition.covers[0] if edition.covers else None
    google = edition.google_ids[0] if edition.google_ids else None
    return Book(
        title=edition.title or (work.title if work else None),
        subtitle=edition.subtitle or (work.subtitle if work else None),
        authors=authors,
        publisher=edition.publishers[0] if edition.publishers else None,
        year=edition.year,
        first_publish_year=year_of(work.first_publish_date) if work else None,
        edition=edition.edition_name,
        isbn_10=isbn10,
        isbn_13=isbn13,
        openlibrary_work_id=edition.work_id or (work.id if work else None),
        openlibrary_edition_id=edition.id,
        edition_count=edition_count,
        cover_url=cover_url(cover),
        google_books_url=f"https://books.google.com/books?id={google}" if google else None,
        worldcat_url=worldcat_url(isbn13),
        subjects=(work.subjects if work and work.subjects else edition.subjects)[:25],
        page_count=edition.number_of_pages,
        description=next((t for t in (texts if about_work else texts[::-1]) if t), None),
        sources=["openlibrary"],
    )


def from_work(work: Work, authors: list[str], *, edition_count: int | None = None) -> Book:
    """A work with no edition to describe: edition-level fields stay null."""
    return Book(
        title=work.title,
        subtitle=work.subtitle,
        authors=authors,
        year=year_of(work.first_publish_date),
        first_publish_year=year_of(work.first_publish_date),
        openlibrary_work_id=work.id,
        edition_count=edition_count,
        cover_url=cover_url(work.covers[0] if work.covers else None),
        subjects=work.subjects[:25],
        description=work.description,
        sources=["openlibrary"],
    )


def edition_summary(edition: Edition) -> EditionSummary:
    isbn10, isbn13 = isbn_pair(edition.isbn_13 + edition.isbn_10)
    return EditionSummary(
        openlibrary_edition_id=edition.id,
        title=edition.title,
        publisher=edition.publishers[0] if edition.publishers else None,
        publish_date=edition.publish_date,
        year=edition.year,
        edition=edition.edition_name,
        isbn_10=isbn10,
        isbn_13=isbn13,
        physical_format=edition.physical_format,
        languages=edition.languages,
        page_count=edition.number_of_pages,
        cover_url=cover_url(edition.covers[0] if edition.covers else None),
    )
