"""Parsing arXiv's Atom feeds (recorded responses of export.arxiv.org)."""

from __future__ import annotations

import pytest

from scholar.core.errors import InvalidArgumentError, UpstreamError
from scholar.families.arxiv import reasons
from scholar.sources.arxiv import parse_feed
from tests.arxiv.helpers import feed, html_render


def test_a_new_style_entry_is_read_with_its_version_and_links():
    parsed = parse_feed(feed("id_list_1605.08386.xml"))
    assert parsed.total == 1
    entry = parsed.entries[0]
    assert (entry.id, entry.base_id, entry.version) == ("1605.08386v1", "1605.08386", "v1")
    assert entry.authors == ["Caprice Stanley", "Tobias Windisch"]
    assert entry.primary_category == "math.CO"
    assert entry.categories == ["math.CO", "math.ST"]
    assert entry.comment == "20 pages, 3 figures"
    assert entry.pdf_url == "https://arxiv.org/pdf/1605.08386v1"
    assert entry.abstract_url == "https://arxiv.org/abs/1605.08386v1"


def test_a_legacy_entry_keeps_its_archive_in_the_id_and_its_journal_ref():
    entry = parse_feed(feed("id_list_legacy_astro-ph_0601001.xml")).entries[0]
    assert entry.id == "astro-ph/0601001v1"
    assert entry.journal_ref == "ActaAstron.56:1-50,2006"
    assert entry.summary.startswith("We derive the frequencies")  # leading whitespace collapsed


def test_a_title_that_is_literally_zero_survives():
    assert parse_feed(feed("id_list_versioned_2104.12255v1_title_0.xml")).entries[0].title == "0"


def test_dois_come_from_the_arxiv_namespace():
    entries = parse_feed(feed("query_testing_start0_max10.xml")).entries
    assert entries[0].doi == "10.1109/ICSTW55395.2022.00035"


def test_an_empty_feed_has_no_entries():
    parsed = parse_feed(feed("id_list_0000.0000_no_results.xml"))
    assert (parsed.total, parsed.entries) == (0, [])


def test_an_error_feed_is_an_invalid_request_naming_arxivs_reason():
    with pytest.raises(InvalidArgumentError) as caught:
        parse_feed(feed("id_list_malformed_abc_400.xml"), field="paper_ids")
    assert caught.value.reason == reasons.INVALID_REQUEST
    assert caught.value.field == "paper_ids"
    assert "incorrect id format for abc" in caught.value.message


def test_a_body_that_is_not_atom_is_an_upstream_error():
    with pytest.raises(UpstreamError):
        parse_feed(b"<html><body>Service Unavailable")


def test_a_well_formed_html_page_is_an_upstream_error_not_an_empty_feed():
    # The recorded arxiv.org/html render is well-formed XML with an <html> root: it must not read as "no papers".
    with pytest.raises(UpstreamError):
        parse_feed(html_render())


def test_an_atom_feed_without_its_total_is_an_upstream_error():
    bare = b'<feed xmlns="http://www.w3.org/2005/Atom"><title>arXiv Search Results</title></feed>'
    with pytest.raises(UpstreamError):
        parse_feed(bare)
