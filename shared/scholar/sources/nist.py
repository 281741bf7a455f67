"""NIST CSRC (csrc.nist.gov): the publications export feed behind every SP, IR, FIPS and white paper.

``pubs-export.meta`` is a few lines (lastModifiedDate, sizes, recordCount, sha256 of the JSON); the sync
compares its sha256 with the last good one before downloading the zip (~100 KB zipped, 1.3 MB of JSON).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from typing import Any

from scholar.core.errors import UpstreamError
from scholar.sources import http

SOURCE = "nist"
META_PATH = "/CSRC/media/feeds/metanorma/pubs-export.meta"
ZIP_PATH = "/CSRC/media/feeds/metanorma/pubs-export.zip"


def parse_meta(text: str) -> dict[str, str]:
    """``name: value`` lines → a dict (the value keeps everything after the first colon)."""
    out = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            out[name.strip()] = value.strip()
    return out


async def fetch_export_meta() -> dict[str, str]:
    """The export's metadata (``sha256``, ``lastModifiedDate``, ``recordCount`` …).

    Raises:
        UpstreamError: a failure, or an answer without a sha256 line.
    """
    response = await http.request(SOURCE, "GET", META_PATH)
    http.raise_for_status(SOURCE, response, what="publications export metadata")
    meta = parse_meta(response.text)
    if "sha256" not in meta:
        raise UpstreamError(f"{SOURCE} export metadata has no sha256 line: {http.excerpt(response)}", source=SOURCE)
    return meta


def read_export_zip(data: bytes, expected_sha256: str | None = None) -> list[dict[str, Any]]:
    """The entries of ``pubs-export.json`` inside the zip.

    Raises:
        UpstreamError: not a zip, no JSON list inside, or a checksum that does not match the metadata.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            name = next((n for n in archive.namelist() if n.endswith(".json")), None)
            if name is None:
                raise UpstreamError(f"{SOURCE} export zip holds no JSON file", source=SOURCE)
            raw = archive.read(name)
    except zipfile.BadZipFile as exc:
        raise UpstreamError(f"{SOURCE} export is not a zip file", source=SOURCE) from exc
    if expected_sha256 and hashlib.sha256(raw).hexdigest().lower() != expected_sha256.lower():
        raise UpstreamError(f"{SOURCE} export does not match the sha256 of its metadata", source=SOURCE)
    entries = json.loads(raw)
    if not isinstance(entries, list):
        raise UpstreamError(f"{SOURCE} export JSON is not a list", source=SOURCE)
    return entries


async def fetch_export(expected_sha256: str | None = None) -> list[dict[str, Any]]:
    """Download and read the publications export (see ``read_export_zip``)."""
    response = await http.request(SOURCE, "GET", ZIP_PATH)
    http.raise_for_status(SOURCE, response, what="publications export")
    return read_export_zip(response.content, expected_sha256)
