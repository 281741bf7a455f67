"""respx routes that serve the recorded standards upstreams under the test proxy base (DESIGN §6).

Recorded bodies are served as recorded. Marked SYNTHETIC where no recording exists: the ETag header of
the RFC index, the W3C list pages after the first, the Relaton indexes and repository archives (built from
the recorded data files, so every listed file exists), the GitHub head-commit answer and RFC plain text.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import respx
import yaml

from tests.standards.records_from_fixtures import relaton_files

RFC_INDEX_ETAG = '"rfc-index-1"'  # SYNTHETIC header
RELATON_REPOS = {"ISO": "relaton_iso", "IEC": "relaton_iec", "IEEE": "relaton_ieee", "ETSI": "etsi/relaton"}


def relaton_index_zip(upstream_dir: Path, body: str, files: list[Path] | None = None) -> bytes:
    """SYNTHETIC index-v1.zip listing the recorded data files of ``body`` (rows shaped like the real index)."""
    folder = RELATON_REPOS[body]
    rows = [{":id": p.stem, ":file": f"data/{p.name}"} for p in (files or relaton_files(upstream_dir, folder))]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        # A fixed timestamp keeps the zip's bytes (and so its checksum) stable between runs.
        archive.writestr(zipfile.ZipInfo("index-v1.yaml", date_time=(2025, 6, 20, 2, 41, 49)), yaml.safe_dump(rows))
    return buffer.getvalue()


def relaton_archive_zip(upstream_dir: Path, body: str, sha: str) -> bytes:
    """SYNTHETIC repository archive (GitHub zipball layout: one top folder, then data/…)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        top = f"relaton-relaton-data-{body.lower()}-{sha[:7]}"
        archive.writestr(f"{top}/README.adoc", "= relaton-data\n")
        for path in relaton_files(upstream_dir, RELATON_REPOS[body]):
            archive.writestr(f"{top}/data/{path.name}", path.read_bytes())
    return buffer.getvalue()


@dataclass
class Upstreams:
    """The mounted routes; tests change ``overrides`` to make one upstream fail or change (an exception is raised)."""

    upstream_dir: Path
    overrides: dict[str, httpx.Response | Exception] = field(default_factory=dict)
    rfc_index: bytes = b""
    requests: list[str] = field(default_factory=list)
    heads: dict[str, str] = field(default_factory=dict)

    def _answer(self, name: str, request: httpx.Request, default: httpx.Response) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url.path}")
        answer = self.overrides.get(name, default)
        if isinstance(answer, Exception):
            raise answer
        return answer


def mount(router: respx.MockRouter, upstream_dir: Path) -> Upstreams:
    """Register every standards upstream route on ``router``."""
    state = Upstreams(
        upstream_dir, rfc_index=(upstream_dir / "ietf" / "rfc-index_excerpt_first307entries.xml").read_bytes()
    )

    def rfc_index(request: httpx.Request) -> httpx.Response:
        if request.headers.get("if-none-match") == RFC_INDEX_ETAG and "rfc_index" not in state.overrides:
            return state._answer("rfc_index_304", request, httpx.Response(304))
        ok = httpx.Response(200, content=state.rfc_index, headers={"etag": RFC_INDEX_ETAG, "content-type": "text/xml"})
        return state._answer("rfc_index", request, ok)

    router.get("/rfc_editor/rfc-index.xml").mock(side_effect=rfc_index)
    router.get(url__regex=r"/rfc_editor/rfc/rfc(\d+)\.txt$").mock(
        side_effect=lambda request: state._answer(
            "rfc_text",
            request,
            # SYNTHETIC text: no RFC text file is among the recordings.
            httpx.Response(200, text="RFC TEXT " + "x" * 30_000, headers={"content-type": "text/plain"}),
        )
    )

    nist = upstream_dir / "nist"
    meta = (nist / "csrc_pubs-export_2024-10-14.meta").read_bytes()
    export = (nist / "csrc_pubs-export_2024-10-14.zip").read_bytes()
    router.get("/nist/CSRC/media/feeds/metanorma/pubs-export.meta").mock(
        side_effect=lambda request: state._answer("nist_meta", request, httpx.Response(200, content=meta))
    )
    router.get("/nist/CSRC/media/feeds/metanorma/pubs-export.zip").mock(
        side_effect=lambda request: state._answer(
            "nist_zip",
            request,
            httpx.Response(200, content=export, headers={"content-type": "application/x-zip-compressed"}),
        )
    )

    w3c = upstream_dir / "w3c"
    first_page = (w3c / "specifications_items-2_page-1.json").read_bytes()
    # SYNTHETIC last page naming the recorded specifications not on page 1.
    last_page = {
        "page": 2,
        "_links": {
            "specifications": [
                {"href": "https://api.w3.org/specifications/webrtc"},
                {"href": "https://api.w3.org/specifications/html5"},
            ]
        },
    }

    def w3c_list(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("page") == "1":
            return state._answer("w3c_list", request, _json(first_page))
        return state._answer("w3c_list", request, httpx.Response(200, json=last_page))

    router.get("/w3c/specifications").mock(side_effect=w3c_list)
    for name in ("2dcontext", "webrtc", "html5"):
        router.get(f"/w3c/specifications/{name}").mock(
            return_value=_json((w3c / f"specifications_{name}.json").read_bytes())
        )
    for name, version in (("2dcontext", "20210128"), ("webrtc", "20250313")):
        body = (w3c / f"specifications_{name}_versions_{version}.json").read_bytes()
        router.get(f"/w3c/specifications/{name}/versions/{version}").mock(return_value=_json(body))

    for body, folder in RELATON_REPOS.items():
        state.heads[body] = f"{body.lower()}0000000000000000000000000000000000001"[:40]
        api = f"/github_api/repos/relaton/relaton-data-{body.lower()}"

        def head(request: httpx.Request, body: str = body) -> httpx.Response:
            return state._answer(f"github_head_{body}", request, httpx.Response(200, json={"sha": state.heads[body]}))

        def zipball(request: httpx.Request, body: str = body) -> httpx.Response:
            sha = request.url.path.rsplit("/", 1)[1]
            data = relaton_archive_zip(upstream_dir, body, sha)
            return state._answer(f"github_zipball_{body}", request, httpx.Response(200, content=data))

        router.get(f"{api}/commits/main").mock(side_effect=head)
        router.get(url__regex=rf"{api}/zipball/\w+$").mock(side_effect=zipball)
        repo = f"/relaton/relaton/relaton-data-{body.lower()}/main"

        def index(request: httpx.Request, body: str = body) -> httpx.Response:
            zipped = relaton_index_zip(upstream_dir, body)
            return state._answer(f"relaton_index_{body}", request, httpx.Response(200, content=zipped))

        router.get(f"{repo}/index-v1.zip").mock(side_effect=index)
        for path in relaton_files(upstream_dir, folder):
            router.get(f"{repo}/data/{path.name}").mock(side_effect=_document(state, path.read_bytes()))
    # IETF's per-document data files (RFC 8341, BCP 47 …): what resolve asks when the catalogue has no such RFC
    for path in sorted((upstream_dir / "ietf" / "relaton").glob("*.yaml")):
        router.get(f"/relaton/relaton/relaton-data-ietf/main/data/{path.name}").mock(
            side_effect=_document(state, path.read_bytes()))
    router.route().mock(return_value=httpx.Response(404, json={"message": "not recorded"}))
    return state


def _document(state: Upstreams, data: bytes) -> Callable[[httpx.Request], httpx.Response]:
    def answer(request: httpx.Request) -> httpx.Response:
        return state._answer(
            "relaton_doc", request, httpx.Response(200, content=data, headers={"content-type": "text/plain"})
        )

    return answer


def _json(data: bytes) -> httpx.Response:
    return httpx.Response(200, content=data, headers={"content-type": "application/hal+json;version=1.0"})
