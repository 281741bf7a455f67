"""Which paper a PDF a caller brought is (scholar.services.fulltext.identity), on the real PDFs of the fixtures."""

from __future__ import annotations

import pytest

from scholar.services.fulltext.identity import identify_pdf
from tests.fixtures_dir import fixtures_dir


def _pdf(name: str) -> bytes:
    path = fixtures_dir() / "pdfs" / name
    if not path.is_file():
        pytest.skip(f"the shared fixtures are absent ({path})")
    return path.read_bytes()


def test_the_arxiv_stamp_on_the_first_page_names_the_paper():
    found = identify_pdf(_pdf("arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf"), "paraphrase.pdf")

    assert found.identifier == "arxiv:2202.00535"


def test_without_an_identifier_the_metadata_title_names_the_document():
    found = identify_pdf(_pdf("arxiv_2304.02623v1_beyond_summarization.pdf"), "download (3).pdf")

    assert found.identifier is None
    assert found.title == "Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks"


def test_without_identifier_or_title_the_file_name_names_it_and_an_unreadable_pdf_too():
    assert identify_pdf(_pdf("scanned_image_only_two_column_page.pdf"), "scan 2016.pdf").title == "scan 2016"
    locked = identify_pdf(_pdf("encrypted_user_password_2206.01062_page3.pdf"), "locked.pdf")
    assert (locked.identifier, locked.title) == (None, "locked")
