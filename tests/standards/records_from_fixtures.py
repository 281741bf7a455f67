"""Catalogue records built from the recorded upstream data (shared by the standards tests)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import yaml

from scholar.families.standards.loaders.ietf import load_rfc_index
from scholar.families.standards.loaders.nist import load_pubs_export
from scholar.families.standards.loaders.relaton import load_relaton
from scholar.families.standards.loaders.w3c import load_specification
from scholar.families.standards.records import StandardRecord

RELATON_DIRS = {"relaton_iso": "ISO", "relaton_iec": "IEC", "relaton_ieee": "IEEE", "etsi/relaton": "ETSI"}
W3C_SPECS = (("webrtc", "20250313"), ("2dcontext", "20210128"), ("html5", None))


def relaton_files(upstream: Path, folder: str) -> list[Path]:
    return sorted(p for p in (upstream / folder).glob("*.yaml") if not p.name.startswith("index"))


def relaton_record(path: Path, body: str) -> StandardRecord:
    record = load_relaton(yaml.safe_load(path.read_text(encoding="utf-8")), body)
    assert record is not None, path
    return record


def nist_entries(upstream: Path) -> list[dict]:
    with zipfile.ZipFile(upstream / "nist" / "csrc_pubs-export_2024-10-14.zip") as archive:
        return json.loads(archive.read("pubs-export.json"))


def w3c_records(upstream: Path) -> list[StandardRecord]:
    out = []
    for short, version in W3C_SPECS:
        spec = json.loads((upstream / "w3c" / f"specifications_{short}.json").read_text())
        latest = (
            json.loads((upstream / "w3c" / f"specifications_{short}_versions_{version}.json").read_text())
            if version
            else None
        )
        out.append(load_specification(spec, latest))
    return out


def all_records(upstream: Path) -> list[StandardRecord]:
    """Every fixture body loaded (unlinked)."""
    records = load_rfc_index((upstream / "ietf" / "rfc-index_excerpt_first307entries.xml").read_bytes())
    records += load_pubs_export(nist_entries(upstream))
    for folder, body in RELATON_DIRS.items():
        records += [relaton_record(p, body) for p in relaton_files(upstream, folder)]
    return records + w3c_records(upstream)
