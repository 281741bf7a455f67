"""Standards catalogue: resolve / search latency over 150,000 records, index size, fixture sync time.

Run: ``python -m benchmarks.standards_bench [--fixtures DIR] [--records N] [--queries N]``.

- The catalogue for latency is SYNTHETIC (benchmark only): records shaped like the real ones loaded from
  the recorded fixtures (same bodies, identifier patterns, statuses, title and abstract vocabulary), scaled
  to the real catalogues' proportions (ISO 68k, IEC 32k, ETSI 24k, IEEE 12k, IETF 10k, NIST 2k, W3C 2k).
- Latency is per call on one thread, in-process, against the SQLite file on local disk (as the standards
  function runs once the catalogue is cached in /tmp); median and p99 over the query set.
- Sync time is the real sync (every body) in moto, against the recorded upstream files served by an
  in-process transport (no network, no pacing): what a full sync costs us, without upstream latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from benchmarks.common import bench_aws_env, report, timed

REPO = Path(__file__).resolve().parents[1]
DEFAULT_FIXTURES = Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures"))
SHARE = {"ISO": 0.45, "IEC": 0.21, "ETSI": 0.16, "IEEE": 0.08, "IETF": 0.067, "NIST": 0.013, "W3C": 0.01}
RELATON = {"ISO": "relaton_iso", "IEC": "relaton_iec", "IEEE": "relaton_ieee", "ETSI": "etsi/relaton"}


def real_records(upstream: Path) -> list:
    """Every recorded body loaded with the production loaders."""
    import yaml

    from scholar.families.standards.loaders.ietf import load_rfc_index
    from scholar.families.standards.loaders.nist import load_pubs_export
    from scholar.families.standards.loaders.relaton import load_relaton
    from scholar.families.standards.loaders.w3c import load_specification

    records = load_rfc_index((upstream / "ietf" / "rfc-index_excerpt_first307entries.xml").read_bytes())
    with zipfile.ZipFile(upstream / "nist" / "csrc_pubs-export_2024-10-14.zip") as archive:
        records += load_pubs_export(json.loads(archive.read("pubs-export.json")))
    for body, folder in RELATON.items():
        for path in sorted((upstream / folder).glob("*.yaml")):
            if not path.name.startswith("index"):
                record = load_relaton(yaml.safe_load(path.read_text(encoding="utf-8")), body)
                if record:
                    records.append(record)
    for short, version in (("webrtc", "20250313"), ("2dcontext", "20210128")):
        spec = json.loads((upstream / "w3c" / f"specifications_{short}.json").read_text())
        latest = json.loads((upstream / "w3c" / f"specifications_{short}_versions_{version}.json").read_text())
        records.append(load_specification(spec, latest))
    return records


def _identifier(body: str, n: int, year: int, rng: random.Random) -> tuple[str, str | None]:
    """A synthetic identifier in the body's real pattern, and the base it amends (if any)."""
    if body == "ISO":
        head = rng.choice(["ISO", "ISO", "ISO", "ISO/IEC", "ISO/TS"])
        base = f"{head} {n}" + (f"-{rng.randint(1, 12)}" if rng.random() < 0.4 else "") + f":{year}"
        if rng.random() < 0.12:
            return f"{base}/Amd {rng.randint(1, 3)}:{year + rng.randint(1, 6)}", base
        return base, None
    if body == "IEC":
        base = f"IEC {60000 + n}-{rng.randint(1, 9)}:{year}"
        if rng.random() < 0.1:
            return f"{base}/AMD{rng.randint(1, 2)}:{year + rng.randint(1, 6)}", base
        return base, None
    if body == "IEEE":
        return f"IEEE Std {n}.{rng.randint(0, 9)}-{year}", None
    if body == "ETSI":
        kind = rng.choice(["EN", "TS", "TR", "ES", "GS"])
        number = f"{300 + n // 1000} {n % 1000:03d}"
        return (
            f"ETSI {kind} {number} V{rng.randint(1, 3)}.{rng.randint(1, 9)}.1 ({year}-{rng.randint(1, 12):02d})",
            None,
        )
    if body == "IETF":
        return f"RFC {n}", None
    if body == "NIST":
        return f"NIST SP 800-{n}" + (f" Rev. {rng.randint(1, 5)}" if rng.random() < 0.4 else ""), None
    return f"W3C spec-{n}", None


def synthetic_records(templates: list, total: int, seed: int = 7) -> list:
    """``total`` records in the real shapes (see module docstring); deterministic for a seed."""
    from scholar.families.standards.records import StandardRecord

    rng = random.Random(seed)
    by_body: dict[str, list] = {}
    for record in templates:
        by_body.setdefault(record.body, []).append(record)
    title_words = [w for r in templates for w in re.findall(r"[A-Za-z]{3,}", r.title)]
    abstract_words = [w for r in templates if r.abstract for w in re.findall(r"[A-Za-z]{3,}", r.abstract)]
    out: list = []
    for body, share in SHARE.items():
        shapes = by_body.get(body) or templates
        for i in range(int(total * share)):
            shape = shapes[i % len(shapes)]
            year = rng.randint(1985, 2025)
            identifier, base = _identifier(body, i + 1, year, rng)
            record_id = identifier.removeprefix("W3C ") if body == "W3C" else identifier.replace("RFC ", "RFC")
            status = shape.status if rng.random() < 0.7 else rng.choice(["current", "withdrawn", "superseded"])
            out.append(
                StandardRecord(
                    id=record_id,
                    identifier=identifier,
                    title=" ".join(rng.choices(title_words, k=rng.randint(4, 12))).capitalize(),
                    body=body,
                    bodies=shape.bodies or [body],
                    status=status,
                    upstream_status=shape.upstream_status,
                    doc_type="amendment" if base else shape.doc_type,
                    published=f"{year}-{rng.randint(1, 12):02d}",
                    abstract=" ".join(rng.choices(abstract_words, k=rng.randint(20, 120)))
                    if rng.random() < 0.6
                    else None,
                    amends=[base] if base else [],
                    urls=shape.urls[:1],
                    source=shape.source,
                )
            )
    return out


def queries(records: list, count: int, seed: int = 11) -> tuple[list[str], list[str]]:
    """(resolve inputs, search queries): identifiers as cited (messy forms), works without year, title words."""
    rng = random.Random(seed)
    sample = rng.sample(records, count)
    resolve_inputs = []
    for record in sample:
        form = rng.randint(0, 3)
        ident = record.identifier
        if form == 1:
            ident = ident.lower().replace(" ", "")
        elif form == 2:
            ident = re.sub(r"[:-](19|20)\d\d$", "", ident)  # the work, without its year
        elif form == 3:
            ident = " ".join(record.title.split()[:5]) or ident
        resolve_inputs.append(ident)
    stop = {"for", "and", "the", "of", "in", "on", "to", "with", "a", "an"}
    search_inputs = []
    for record in sample:
        words = [w for w in re.findall(r"[A-Za-z]{3,}", record.title) if w.lower() not in stop]
        search_inputs.append(
            rng.choice(
                [
                    " ".join(words[: rng.randint(1, 3)]) or record.identifier,  # title words
                    re.sub(r"[:-](19|20)\d\d.*$", "", record.identifier),  # an identifier without its year
                    record.identifier,  # an identifier as catalogued
                ]
            )
        )
    return resolve_inputs, search_inputs


def measure_catalogue(records: list, n_queries: int) -> None:
    from scholar.families.standards.catalogue_db import Catalogue, build_catalogue
    from scholar.families.standards.linking import link

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "catalogue.sqlite"
        began = time.perf_counter()
        count = build_catalogue(link(records), path, {"version": "bench"})
        build_s = time.perf_counter() - began
        size = path.stat().st_size
        print(f"  catalogue: {count:,} records, {size / 1e6:.1f} MB on disk ({size / count:.0f} B/record)")
        print(f"  build (link + SQLite + FTS5): {build_s:.1f} s")
        catalogue = Catalogue(path)
        resolve_inputs, search_inputs = queries(records, n_queries)
        resolve_it, search_it = iter(resolve_inputs * 2), iter(search_inputs * 2)
        report(
            "resolve_standard_identifier (catalogue.resolve)",
            timed(lambda: catalogue.resolve(next(resolve_it)), n_queries, 5),
        )
        report(
            "search_standards limit 10 (catalogue.search)",
            timed(lambda: catalogue.search(next(search_it)), n_queries, 5),
        )
        status_it = iter(search_inputs * 2)
        report(
            "search_standards body=ISO status=current",
            timed(lambda: catalogue.search(next(status_it), body="ISO", status="current"), n_queries, 5),
        )
        catalogue.close()


def measure_sync(upstream: Path) -> None:
    """The whole sync (every body) in moto against the recorded files; prints seconds and records."""
    import boto3
    import httpx
    import moto

    from scholar.core.config import get_settings
    from scholar.families.standards.sync import run_sync
    from scholar.sources import http
    from scholar.store import aws

    bench_aws_env(
        SCHOLAR_CACHE_TABLE="bench-cache",
        SCHOLAR_ARTIFACT_BUCKET="bench-artifacts",
        SCHOLAR_PACE_SCALE="0",
        SCHOLAR_UPSTREAM_PROXY_BASE="http://upstream.bench",
    )
    get_settings.cache_clear()
    aws.reset_clients()
    files = _upstream_files(upstream)
    http.set_transport_factory(lambda source: httpx.MockTransport(lambda request: _serve(files, request)))
    with moto.mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="bench-artifacts")
        boto3.client("dynamodb", region_name="us-east-1").create_table(
            TableName="bench-cache",
            BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        )
        times = []
        for _ in range(2):
            began = time.perf_counter()
            sync_report = asyncio.run(run_sync())
            times.append(time.perf_counter() - began)
        records = sync_report.pointer.records if sync_report.pointer else 0
    http.set_transport_factory(None)
    print(
        f"  full sync of the fixture bodies (7 bodies, {records:,} records, moto S3/DynamoDB): "
        f"{times[0]:.2f} s first run, {times[1]:.2f} s unchanged re-run"
    )


def _upstream_files(upstream: Path) -> dict[str, bytes]:
    """Public path → recorded bytes (SYNTHETIC Relaton index listing the recorded data files)."""
    import io

    import yaml

    files = {
        "/rfc_editor/rfc-index.xml": (upstream / "ietf" / "rfc-index_excerpt_first307entries.xml").read_bytes(),
        "/nist/CSRC/media/feeds/metanorma/pubs-export.meta": (
            upstream / "nist" / "csrc_pubs-export_2024-10-14.meta"
        ).read_bytes(),
        "/nist/CSRC/media/feeds/metanorma/pubs-export.zip": (
            upstream / "nist" / "csrc_pubs-export_2024-10-14.zip"
        ).read_bytes(),
        "/w3c/specifications": (upstream / "w3c" / "specifications_items-2_page-1.json")
        .read_bytes()
        .replace(b'"next"', b'"_next"'),
    }
    for name in ("2dcontext", "webrtc", "html5"):
        files[f"/w3c/specifications/{name}"] = (upstream / "w3c" / f"specifications_{name}.json").read_bytes()
    files["/w3c/specifications/2dcontext/versions/20210128"] = (
        upstream / "w3c" / "specifications_2dcontext_versions_20210128.json"
    ).read_bytes()
    for body, folder in RELATON.items():
        repo = f"/relaton/relaton/relaton-data-{body.lower()}/main"
        data = sorted(p for p in (upstream / folder).glob("*.yaml") if not p.name.startswith("index"))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            rows = [{":id": p.stem, ":file": f"data/{p.name}"} for p in data]
            archive.writestr(zipfile.ZipInfo("index-v1.yaml", date_time=(2025, 1, 1, 0, 0, 0)), yaml.safe_dump(rows))
        files[f"{repo}/index-v1.zip"] = buffer.getvalue()
        for path in data:
            files[f"{repo}/data/{path.name}"] = path.read_bytes()
    return files


def _serve(files: dict[str, bytes], request) -> object:  # httpx.Request → httpx.Response
    import httpx

    body = files.get(request.url.path)
    return (
        httpx.Response(200, content=body) if body is not None else httpx.Response(404, json={"message": "not recorded"})
    )


def main(argv: list[str] | Path | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--records", type=int, default=150_000)
    parser.add_argument("--queries", type=int, default=2_000)
    args = parser.parse_args(["--fixtures", str(argv)] if isinstance(argv, Path) else argv)
    upstream = args.fixtures / "upstream"
    if not (upstream / "ietf").is_dir():
        print(f"standards_bench: no recorded upstreams at {upstream} (set SCHOLAR_FIXTURES_DIR); skipped")
        return 0
    print(f"Standards catalogue — SYNTHETIC {args.records:,}-record catalogue in the real record shapes; one thread")
    templates = real_records(upstream)
    measure_catalogue(synthetic_records(templates, args.records) + templates, args.queries)
    measure_sync(upstream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
