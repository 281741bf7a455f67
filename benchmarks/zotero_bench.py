"""Zotero push figures (issue 30), against the fake Zotero (tests/fakes/zotero.py) with 100 ms per request.

A push of 200 items (real recorded S2 records) of which 50 carry a kept PDF: requests sent against the API's
minimum (⌈objects / 50⌉ writes, and three requests per new file), and the wall time when every request costs
100 ms (Zotero's own latency is of that order from a data centre). Then the same push again: it must only read.
``python -m benchmarks zotero`` (``BENCH_ZOTERO_DELAY_S`` sets the per-request delay, default 0.1).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import os
import time
from pathlib import Path

from benchmarks.common import bench_aws_env

ITEMS = 200
PDFS = 50


def main(fixtures: Path) -> None:
    import moto
    from pydantic import SecretStr

    from scholar.core.config import get_settings
    from scholar.services.connectors.zotero_push import push
    from scholar.sources import http, zotero
    from scholar.sources.zotero import ZoteroClient, ZoteroLibrary
    from scholar.store import aws
    from scholar.store.connections import ConnectionStore
    from tests.aws_tables import create_library_table
    from tests.connectors.items import many_items, with_pdf
    from tests.fakes.zotero import PUBLIC_LIBRARY, FakeZotero

    delay = float(os.environ.get("BENCH_ZOTERO_DELAY_S", "0.1"))
    bench_aws_env(SCHOLAR_CONNECTIONS_TABLE="bench-connections", SCHOLAR_UPSTREAM_PROXY_BASE="http://upstream.test",
                  SCHOLAR_PACE_SCALE="0")
    pdf = (fixtures / "pdfs/arxiv_2305.03393v1_page9_only.pdf").read_bytes()
    files: dict[str, bytes] = {}
    items = many_items(ITEMS, "bench")
    for n in range(PDFS):
        # One distinct file per item (Zotero keys files by MD5): the recorded PDF plus the item's number.
        data = pdf + f"\n%{n}".encode()
        sha = hashlib.sha256(data).hexdigest()
        items[n] = with_pdf(items[n], data, sha)
        files[items[n].pdfs[0].pdf_path] = data

    async def read(reference: str) -> bytes | None:
        return files.get(reference)

    with moto.mock_aws():
        get_settings.cache_clear()
        aws.reset_clients()
        create_library_table(aws.dynamodb(), "bench-connections")
        fake = FakeZotero(delay_s=delay)
        fake.install()
        zotero._sleep = asyncio.sleep
        store = ConnectionStore("bench")
        try:
            for label in ("first push", "second push (no change)"):
                client = ZoteroClient(ZoteroLibrary("zotero", PUBLIC_LIBRARY, SecretStr(fake.api_key)))
                fake.log.clear()
                began = time.perf_counter()
                report = asyncio.run(push(client, store, items, "bench", read_file=read))
                took = time.perf_counter() - began
                reads = sum(1 for s in fake.log if s.method == "GET")
                writes = len(fake.log) - reads
                print(f"zotero: {label:<24} {len(fake.log):4d} requests ({reads} reads, {writes} writes) "
                      f"{took:6.2f} s at {delay * 1000:.0f} ms/request; created {report.items.created}, "
                      f"unchanged {report.items.unchanged}, files {report.files}", flush=True)
                if label == "first push":
                    # Objects written: the items, and one attachment item per PDF (Zotero's file lives on it).
                    minimum = math.ceil(ITEMS / 50) + 3 * PDFS
                    objects = math.ceil(ITEMS / 50) + math.ceil(PDFS / 50) + 3 * PDFS
                    print(f"zotero: API minimum (issue's formula) {minimum} requests; with the attachment items "
                          f"{objects}; reads on top: collection lookup + create, versions", flush=True)
        finally:
            http.set_transport_factory(None)
