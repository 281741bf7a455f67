"""Resolve and search over a catalogue built from the recorded upstream data."""

from __future__ import annotations

import pytest

from scholar.families.standards.identifiers import key, query_keys


@pytest.mark.parametrize("raw", ["RFC 3", "rfc3", "RFC0003", "rfc-003", "IETF RFC 3", "RFC #3"])
def test_rfc_numbers_resolve_with_or_without_padding(fixture_catalogue, raw):
    resolution = fixture_catalogue.resolve(raw)
    assert resolution.record is not None
    assert resolution.record.id == "RFC3"


def test_rfc_series_resolve(fixture_catalogue):
    assert fixture_catalogue.resolve("BCP 14").record.id == "BCP14"
    assert fixture_catalogue.resolve("fyi0002").record.id == "FYI2"


def test_nist_sp_without_revision_resolves_to_the_current_revision_and_lists_the_others(fixture_catalogue):
    resolution = fixture_catalogue.resolve("NIST SP 800-53")
    assert resolution.record.id == "NIST SP 800-53 Rev. 5 (upd1)"
    assert resolution.record.status == "current"
    others = {r.identifier for r in resolution.others}
    assert {"NIST SP 800-53", "NIST SP 800-53 Rev. 4", "NIST SP 800-53 Rev. 1"} <= others
    assert fixture_catalogue.resolve("nist 800-53").record.id == "NIST SP 800-53 Rev. 5 (upd1)"


@pytest.mark.parametrize("raw", ["NIST SP 800-53 Rev. 4", "sp 800-53r4", "NIST Special Publication 800-53 Revision 4"])
def test_nist_sp_with_revision_resolves_to_that_revision(fixture_catalogue, raw):
    resolution = fixture_catalogue.resolve(raw)
    assert resolution.record.identifier == "NIST SP 800-53 Rev. 4"
    assert resolution.record.id == "NIST SP 800-53 Rev. 4 (upd3)"  # the last update of Rev. 4


def test_a_shorter_number_is_never_a_substring_match(fixture_catalogue):
    resolution = fixture_catalogue.resolve("sp 800-5")
    assert resolution.record is not None
    assert resolution.record.identifier == "NIST SP 800-5"
    assert key("sp 800-5") != key("sp 800-53")
    assert fixture_catalogue.resolve("RFC 250").record is None  # RFC 25 is catalogued, RFC 250 is not
    assert fixture_catalogue.resolve("RFC 14").record is None  # never issued


def test_fips_resolves_to_the_newest_revision_in_force(fixture_catalogue):
    assert fixture_catalogue.resolve("FIPS 140").record.id == "NIST FIPS 140-3"
    assert fixture_catalogue.resolve("FIPS PUB 186-4").record.id == "NIST FIPS 186-4"


def test_iso_without_year_resolves_to_the_current_edition_with_older_as_others(fixture_catalogue):
    resolution = fixture_catalogue.resolve("ISO 9001")
    assert resolution.record.identifier == "ISO 9001:2015"
    assert {"ISO 9001:2008", "ISO/CD 9001"} <= {r.identifier for r in resolution.others}


def test_iso_with_year_resolves_to_that_edition_even_when_withdrawn(fixture_catalogue):
    resolution = fixture_catalogue.resolve("ISO 9001:2008")
    assert (resolution.record.identifier, resolution.record.status) == ("ISO 9001:2008", "withdrawn")


@pytest.mark.parametrize(
    "raw", ["ISO 27001", "ISO/IEC 27001", "iso 27001:2022", "IEC 27001:2022", "ISO/IEC 27001:2022"]
)
def test_joint_iso_iec_standards_resolve_from_either_body(fixture_catalogue, raw):
    assert fixture_catalogue.resolve(raw).record.identifier == "ISO/IEC 27001:2022"


def test_ieee_without_year_resolves_to_the_current_base_standard_not_the_redline(fixture_catalogue):
    resolution = fixture_catalogue.resolve("IEEE 754")
    assert resolution.record.identifier == "IEEE Std 754-2019"
    assert {"IEEE Std 754-2008", "IEEE Std 754-2019 Redline"} <= {r.identifier for r in resolution.others}
    assert fixture_catalogue.resolve("IEEE Std 754-2008").record.status == "superseded"
    assert fixture_catalogue.resolve("IEC 61588").record.identifier == "IEC/IEEE 61588-2021"


def test_amendments_resolve_to_themselves(fixture_catalogue):
    record = fixture_catalogue.resolve("ISO 9001:2015/Amd 1:2024").record
    assert (record.doc_type, record.amends) == ("amendment", ["ISO 9001:2015"])
    base = fixture_catalogue.get("ISO 9001:2015")
    assert "ISO 9001:2015/Amd 1:2024" in base.amendments


@pytest.mark.parametrize("raw", ["ETSI EN 303 645", "EN 303645", "etsi en 303 645 v2.1.1"])
def test_etsi_deliverables_resolve_with_or_without_version(fixture_catalogue, raw):
    assert fixture_catalogue.resolve(raw).record.id == "ETSI EN 303 645 V2.1.1 (2020-06)"


def test_w3c_short_names_and_titles_resolve(fixture_catalogue):
    assert fixture_catalogue.resolve("webrtc").record.id == "webrtc"
    assert fixture_catalogue.resolve("W3C 2dcontext").record.status == "withdrawn"
    by_title = fixture_catalogue.resolve("WebRTC: Real-Time Communication in Browsers")
    assert (by_title.record.id, by_title.matched_by) == ("webrtc", "title")


def test_free_text_that_names_no_single_standard_is_ambiguous(fixture_catalogue):
    resolution = fixture_catalogue.resolve("quality management systems")
    assert resolution.ambiguous
    assert resolution.candidates[0].identifier == "ISO 9001:2015"


def test_unknown_identifiers_resolve_to_nothing(fixture_catalogue):
    for raw in ("ISO 99999", "RFC 99999", "nonsense words nobody wrote"):
        resolution = fixture_catalogue.resolve(raw)
        assert resolution.record is None and not resolution.candidates


def test_std_is_filler_after_a_body_but_the_ietf_std_series_keeps_it():
    assert key("IEEE Std 754-2008") == key("ieee 754-2008") == "ieee-754-2008"
    assert key("STD 3") == key("std0003") == "std-3"
    assert key("FIPS PUB 140-3") == "fips-140-3"


def test_query_keys_add_the_implied_body():
    assert "nist-sp-800-53" in query_keys("800-53")
    assert "nist-fips-140" in query_keys("FIPS 140")
    assert "etsi-en-303645" in query_keys("EN 303 645")


def test_search_ranks_identifier_matches_before_text_matches(fixture_catalogue):
    results = fixture_catalogue.search("800-53", status="current", limit=5)
    assert results[0].id == "NIST SP 800-53 Rev. 5 (upd1)"
    assert all(r.status == "current" for r in results)


def test_search_by_title_words_uses_bm25(fixture_catalogue):
    results = fixture_catalogue.search("floating point arithmetic", limit=10)
    assert all("754" in r.identifier for r in results[:4])


def test_search_body_filter_includes_joint_standards(fixture_catalogue):
    assert [r.identifier for r in fixture_catalogue.search("27001", body="IEC")] == ["ISO/IEC 27001:2022"]
    assert [r.identifier for r in fixture_catalogue.search("9945", body="IEEE")] == ["ISO/IEC/IEEE 9945:2009"]
    assert fixture_catalogue.search("27001", body="IETF") == []


def test_search_status_filter_withdrawn_covers_superseded_and_withdrawn(fixture_catalogue):
    results = fixture_catalogue.search("quality management", status="withdrawn")
    assert [r.identifier for r in results] == ["ISO 9001:2008"]


def test_search_respects_the_limit(fixture_catalogue):
    assert len(fixture_catalogue.search("security", limit=3)) == 3
