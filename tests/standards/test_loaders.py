"""Loaders over the real recorded upstream data: statuses, revisions, joint bodies, amendments."""

from __future__ import annotations

from pathlib import Path

import yaml

from scholar.families.standards.loaders.ietf import load_rfc_index
from scholar.families.standards.loaders.nist import load_pubs_export
from scholar.families.standards.loaders.relaton import index_files, load_relaton
from scholar.families.standards.loaders.w3c import load_specification, status_of
from tests.standards.records_from_fixtures import nist_entries, relaton_record, w3c_records


def _rfc_index(upstream_dir: Path) -> dict:
    records = load_rfc_index((upstream_dir / "ietf" / "rfc-index_excerpt_first307entries.xml").read_bytes())
    return {r.id: r for r in records}


def test_rfc_index_keeps_rfcs_below_1000_and_every_series(upstream_dir):
    records = _rfc_index(upstream_dir)
    assert {"RFC1", "RFC3", "RFC25", "BCP14", "FYI2"} <= set(records)
    assert sum(r.doc_type == "RFC" for r in records.values()) == 24
    assert "RFC14" not in records  # an rfc-not-issued-entry is no document
    assert records["RFC1"].identifier == "RFC 1"
    assert "RFC0001" in records["RFC1"].aliases


def test_an_obsoleted_rfc_is_superseded_and_names_its_successor(upstream_dir):
    rfc3 = _rfc_index(upstream_dir)["RFC3"]
    assert rfc3.status == "superseded"
    assert rfc3.superseded_by == ["RFC 10"]
    assert rfc3.upstream_status == "UNKNOWN"
    assert rfc3.published == "1969-04"
    assert rfc3.doi == "10.17487/RFC0003"


def test_rfc_updates_and_updated_by_are_kept(upstream_dir):
    rfc24 = _rfc_index(upstream_dir)["RFC24"]
    assert rfc24.updates == ["RFC 10", "RFC 16"]
    assert rfc24.updated_by == ["RFC 27", "RFC 30"]
    assert rfc24.status == "current"


def test_bcp_entries_list_their_rfcs(upstream_dir):
    bcp9 = _rfc_index(upstream_dir)["BCP9"]
    assert bcp9.doc_type == "BCP"
    assert "RFC 2026" in bcp9.related


def test_nist_export_lists_every_revision_update_and_draft_of_sp_800_53(upstream_dir):
    records = {r.id: r for r in load_pubs_export(nist_entries(upstream_dir))}
    sp80053 = {i: r for i, r in records.items() if r.identifier.startswith("NIST SP 800-53 Rev.")}
    assert {r.identifier for r in sp80053.values()} == {f"NIST SP 800-53 Rev. {n}" for n in range(1, 6)}
    current = [r for r in sp80053.values() if r.status == "current"]
    assert [r.id for r in current] == ["NIST SP 800-53 Rev. 5 (upd1)"]
    assert records["NIST SP 800-53 Rev. 5"].status == "superseded"
    assert records["NIST SP 800-53 Rev. 5"].superseded_by == ["NIST SP 800-53 Rev. 5 (upd1)"]
    assert records["NIST SP 800-53 Rev. 5 (ipd)"].doc_type == "draft SP"
    assert records["NIST SP 800-53 Rev. 4 (upd3)"].superseded_by == ["NIST SP 800-53 Rev. 5"]


def test_nist_fips_and_withdrawn_publications_keep_their_status(upstream_dir):
    records = {r.id: r for r in load_pubs_export(nist_entries(upstream_dir))}
    assert records["NIST FIPS 140-3"].status == "current"
    assert records["NIST FIPS 140-3"].doc_type == "FIPS"
    assert records["NIST FIPS 186-4"].status == "superseded"
    assert records["NIST FIPS 186-4"].superseded_by == ["NIST FIPS 186-5"]
    assert records["NIST FIPS 181"].status == "withdrawn"
    assert records["NIST SP 800-53 Rev. 5 (upd1)"].full_text_url == "https://doi.org/10.6028/NIST.SP.800-53r5"


def test_nist_record_ids_are_unique(upstream_dir):
    entries = nist_entries(upstream_dir)
    records = load_pubs_export(entries)
    assert len(records) == len(entries) == 839
    assert len({r.id for r in records}) == len(records)


def test_withdrawn_iso_9001_2008_is_withdrawn_from_stage_95_99(upstream_dir):
    record = relaton_record(upstream_dir / "relaton_iso" / "iso-9001-2008.yaml", "ISO")
    assert record.identifier == "ISO 9001:2008"
    assert record.status == "withdrawn"
    assert record.upstream_status == "95.99"
    assert record.superseded_by == ["ISO 9001:2015"]
    assert record.amendments == ["ISO 9001:2008/Cor 1:2009"]
    assert record.title == "Quality management systems - Requirements"


def test_current_iso_edition_supersedes_the_old_one_and_lists_its_amendment(upstream_dir):
    record = relaton_record(upstream_dir / "relaton_iso" / "iso-9001-2015.yaml", "ISO")
    assert record.status == "current"
    assert "ISO 9001:2008" in record.supersedes
    assert record.amendments == ["ISO 9001:2015/Amd 1:2024"]


def test_an_amendment_is_its_own_record_linked_to_its_base(upstream_dir):
    amd = relaton_record(upstream_dir / "relaton_iso" / "iso-9001-2015-amd-1-2024.yaml", "ISO")
    assert (amd.doc_type, amd.amends, amd.status) == ("amendment", ["ISO 9001:2015"], "current")
    cor = relaton_record(upstream_dir / "relaton_iso" / "iso-6709-2008-cor-1-2009.yaml", "ISO")
    assert (cor.doc_type, cor.amends, cor.status) == ("corrigendum", ["ISO 6709:2008"], "withdrawn")
    iec = relaton_record(upstream_dir / "relaton_iec" / "iec_60050-102_2007_amd1_2017.yaml", "IEC")
    assert (iec.doc_type, iec.amends) == ("amendment", ["IEC 60050-102:2007"])
    ish = relaton_record(upstream_dir / "relaton_iec" / "iec_60601-1_2005_ish1_2008.yaml", "IEC")
    assert (ish.doc_type, ish.amends) == ("interpretation sheet", ["IEC 60601-1:2005"])


def test_drafts_are_drafts(upstream_dir):
    cd = relaton_record(upstream_dir / "relaton_iso" / "iso-cd-9001.yaml", "ISO")
    assert (cd.status, cd.upstream_status) == ("draft", "30.92")
    wd_amd = relaton_record(upstream_dir / "relaton_iso" / "iso-iec-23008-1-2023-wd-amd-1.yaml", "ISO")
    assert (wd_amd.status, wd_amd.doc_type, wd_amd.amends) == ("draft", "amendment", ["ISO/IEC 23008-1:2023"])
    ieee = relaton_record(upstream_dir / "relaton_ieee" / "IEEE_STD_P802.16-2004_D-5_COR1-2005.yaml", "IEEE")
    assert (ieee.status, ieee.doc_type) == ("draft", "corrigendum")


def test_joint_standards_list_every_body(upstream_dir):
    iso_iec = relaton_record(upstream_dir / "relaton_iso" / "iso-iec-27001-2022.yaml", "ISO")
    assert (iso_iec.body, iso_iec.bodies) == ("ISO", ["ISO", "IEC"])
    triple = relaton_record(upstream_dir / "relaton_iso" / "iso-iec-ieee-9945-2009.yaml", "ISO")
    assert triple.bodies == ["ISO", "IEC", "IEEE"]
    dual = relaton_record(upstream_dir / "relaton_ieee" / "IEC_IEEE_61588-2021.yaml", "IEEE")
    assert (dual.body, dual.bodies) == ("IEEE", ["IEC", "IEEE"])


def test_ieee_status_comes_from_its_own_field(upstream_dir):
    folder = upstream_dir / "relaton_ieee"
    old = relaton_record(folder / "IEEE_STD_754-2008.yaml", "IEEE")
    assert (old.status, old.upstream_status) == ("superseded", "Superseded")
    assert old.superseded_by == ["IEEE Std 754-2019"]
    assert old.supersedes == ["ANSI/IEEE Std 754-1985"]
    new = relaton_record(folder / "IEEE_STD_754-2019.yaml", "IEEE")
    assert (new.status, new.supersedes) == ("current", ["IEEE Std 754-2008"])
    withdrawn = relaton_record(folder / "IEEE_STD_1003.0-1995.yaml", "IEEE")
    assert withdrawn.status == "withdrawn"
    assert old.published == "2008-06-12"  # issued, not the later Xplore posting date


def test_iec_stage_words_map_to_status(upstream_dir):
    folder = upstream_dir / "relaton_iec"
    assert relaton_record(folder / "iec_61508-1_1998.yaml", "IEC").status == "superseded"
    assert relaton_record(folder / "iec_pas_62596_2009.yaml", "IEC").status == "superseded"
    assert relaton_record(folder / "iec_61326-1_2020.yaml", "IEC").status == "current"
    csv = relaton_record(folder / "iec_60601-1_2005+amd1_2012+amd2_2020_csv.yaml", "IEC")
    assert csv.doc_type == "consolidated version"


def test_single_value_relaton_shape_reads_like_the_list_shape(upstream_dir):
    # Static records write docid/date/copyright as single mappings and language as a scalar.
    directive = relaton_record(upstream_dir / "relaton_iso" / "static_ISO_IEC_DIR_1.yaml", "ISO")
    assert directive.identifier == "ISO/IEC DIR 1"
    assert directive.published == "2023-05-01"
    assert directive.title == "ISO/IEC Directives, Part 1 - Procedures for the technical work"
    iec_static = relaton_record(upstream_dir / "relaton_iec" / "static_iso_iec_dir_2_iec.yaml", "IEC")
    assert iec_static.version == "8"


def test_v2_style_keys_are_read(upstream_dir):
    # SYNTHETIC: the 27001 record re-keyed the way newer Relaton writes it (docidentifier/content, scalar
    # language, stage as a plain string); no v2 data file is among the recordings.
    data = yaml.safe_load((upstream_dir / "relaton_iso" / "iso-iec-27001-2022.yaml").read_text(encoding="utf-8"))
    data["docidentifier"] = [
        {"content": d["id"], "type": d["type"], "primary": d.get("primary")} for d in data.pop("docid")
    ]
    data["docstatus"] = {"stage": "60", "substage": "60"}
    for title in data["title"]:
        title["language"] = title["language"][0]
    record = load_relaton(data, "ISO")
    assert record is not None
    assert (record.identifier, record.status, record.bodies) == ("ISO/IEC 27001:2022", "current", ["ISO", "IEC"])
    assert record.title.startswith("Information security, cybersecurity and privacy protection")


def test_etsi_records_carry_the_pdf_and_deliverable_type(upstream_dir):
    record = relaton_record(upstream_dir / "etsi" / "relaton" / "ETSI_EN_303_645_V2_1_1_2020-06.yaml", "ETSI")
    assert record.identifier == "ETSI EN 303 645 V2.1.1 (2020-06)"
    assert record.doc_type == "EN"
    assert record.version == "2.1.1"
    assert record.full_text_url and record.full_text_url.endswith(".pdf")
    placeholder = relaton_record(upstream_dir / "etsi" / "relaton" / "ETSI_GS_ZSM_012_V1_1_1_2022-12.yaml", "ETSI")
    assert placeholder.title == ""  # the upstream title is the literal "<empty>"


def test_relaton_index_lists_data_files_in_both_row_shapes(upstream_dir):
    iso = index_files(yaml.safe_load((upstream_dir / "relaton_iso" / "index-v1_excerpt_first300.yaml").read_text()))
    ieee = index_files(yaml.safe_load((upstream_dir / "relaton_ieee" / "index-v1_excerpt_first300.yaml").read_text()))
    assert len(iso) == len(ieee) == 300
    assert iso[0] == "static/ISO_IEC_DIR_1.yaml"
    assert ieee[0] == "data/AIEE_11-1937.yaml"


def test_w3c_maturity_maps_to_status(upstream_dir):
    records = {r.id: r for r in w3c_records(upstream_dir)}
    assert (records["webrtc"].status, records["webrtc"].upstream_status) == ("current", "Recommendation")
    assert records["2dcontext"].status == "withdrawn"  # Retired
    assert records["webrtc"].identifier == "W3C webrtc"
    assert status_of("Working Draft") == "draft"
    assert status_of("Superseded Recommendation") == "superseded"
    assert status_of("Candidate Recommendation Snapshot") == "draft"
    assert (status_of("Group Note"), status_of("Draft Note"), status_of("Discontinued Draft")) == (
        "current",
        "draft",
        "withdrawn",
    )


def test_w3c_title_acronym_becomes_an_alias():
    # SYNTHETIC spec document in the W3C API shape (no WCAG capture among the recordings).
    record = load_specification(
        {"shortname": "WCAG21", "title": "Web Content Accessibility Guidelines (WCAG) 2.1"},
        {"status": "Recommendation"},
    )
    assert "WCAG 2.1" in record.aliases


def test_the_relaton_loader_also_reads_ietf_and_nist_items(upstream_dir):
    rfc = relaton_record(upstream_dir / "ietf" / "relaton" / "RFC8341.yaml", "IETF")
    assert (rfc.identifier, rfc.title, rfc.published) == (
        "RFC 8341", "Network Configuration Access Control Model", "2018-03"
    )
    bcp = relaton_record(upstream_dir / "ietf" / "relaton" / "BCP0047.yaml", "IETF")
    assert bcp.related == ["RFC 4647", "RFC 5646"]
    sp = relaton_record(upstream_dir / "nist" / "relaton" / "NIST_SP_800-37R2.yaml", "NIST")
    assert (sp.identifier, sp.published) == ("NIST SP 800-37r2", "2018")


def test_relaton_index_rows_without_symbol_keys_are_read():
    # SYNTHETIC rows in the index-v2 style (pubid mapping under "id", plain "file" key).
    rows = [
        {"id": {"_type": "pubid:iso:identifier", "publisher": "ISO", "number": "9001"}, "file": "data/iso-9001.yaml"}
    ]
    assert index_files(rows) == ["data/iso-9001.yaml"]
