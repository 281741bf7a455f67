"""Relaton data repositories (relaton-data-<body>): head commit and whole-repository archive through the GitHub
API, index and per-document YAML on raw.githubusercontent.com.

The archive is how a body is (re)loaded whole: one request instead of one per document, and a changed
document is seen even when the index did not change. Per-document fetches are the fallback.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from typing import Any

import yaml

from scholar.core.errors import UpstreamError
from scholar.core.urlpath import segment, segments
from scholar.sources import http

SOURCE = "relaton"
OWNER = "relaton"
BRANCH = "main"
INDEX_FILE = "index-v1"


def repository(body: str) -> str:
    """``ISO`` → ``relaton-data-iso``."""
    return f"relaton-data-{body.lower()}"


async def fetch_index(body: str) -> bytes:
    """The zipped index of the body's data repository, as served.

    Raises:
        UpstreamError: a failure.
    """
    return await _get_bytes(SOURCE, f"/{OWNER}/{segment(repository(body))}/{BRANCH}/{INDEX_FILE}.zip",
                            what=f"{body} Relaton index")


async def _get_bytes(source: str, path: str, *, what: str) -> bytes:
    """The body of a GET as served; a non-2xx answer typed by ``http.raise_for_status``."""
    response = await http.request(source, "GET", path)
    http.raise_for_status(source, response, what=what)
    return response.content


def read_index(data: bytes) -> Any:
    """The YAML rows inside an index zip.

    Raises:
        UpstreamError: not a zip, or no YAML inside.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            name = next((n for n in archive.namelist() if n.endswith((".yaml", ".yml"))), None)
            if name is None:
                raise UpstreamError(f"{SOURCE} index zip holds no YAML file", source=SOURCE)
            return yaml.load(archive.read(name), Loader=_loader())
    except zipfile.BadZipFile as exc:
        raise UpstreamError(f"{SOURCE} index is not a zip file (an error page?)", source=SOURCE) from exc


async def fetch_document(body: str, path: str) -> dict[str, Any]:
    """One data file (``data/iso-9001-2015.yaml``) parsed.

    Raises:
        NotFoundError: 404.
        UpstreamError: a failure, or a body that is not a YAML mapping.
    """
    content = await _get_bytes(SOURCE, f"/{OWNER}/{segment(repository(body))}/{BRANCH}/{segments(path, field='path')}",
                               what=f"Relaton document {path}")
    try:
        data = yaml.load(content, Loader=_loader())
    except yaml.YAMLError as exc:
        raise UpstreamError(f"{SOURCE} document {path} is not valid YAML", source=SOURCE) from exc
    if not isinstance(data, dict):
        raise UpstreamError(f"{SOURCE} document {path} is not a YAML mapping", source=SOURCE)
    return data


def _loader() -> type[yaml.SafeLoader]:
    # libyaml's loader is several times faster on the large indexes; fall back when it is not compiled in.
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


COMMITS_SOURCE = "github_api"
_ARCHIVE_MEMBER = re.compile(r"^[^/]+/(?:data|static)/[^/]+\.ya?ml$")


async def latest_commit(body: str) -> str:
    """The commit sha at the head of the body's data repository (the sync's upstream version).

    Raises:
        RateLimitedError: GitHub's unauthenticated quota (60 an hour) is spent.
        UpstreamError: a failure or an answer without a sha.
    """
    data = await http.get_json(
        COMMITS_SOURCE,
        f"/repos/{OWNER}/{segment(repository(body))}/commits/{BRANCH}",
        what=f"{body} data repository head",
    )
    sha = data.get("sha") if isinstance(data, dict) else None
    if not isinstance(sha, str) or not sha:
        raise UpstreamError(f"{COMMITS_SOURCE} named no commit for {repository(body)}", source=COMMITS_SOURCE)
    return sha


async def fetch_archive(body: str, sha: str) -> bytes:
    """The whole data repository at ``sha`` as a zip (GitHub redirects to its archive host; followed).

    Raises:
        UpstreamError: a failure.
    """
    return await _get_bytes(COMMITS_SOURCE, f"/repos/{OWNER}/{segment(repository(body))}/zipball/{segment(sha)}",
                            what=f"{body} data repository archive")


def archive_documents(data: bytes) -> Iterator[tuple[str, Any]]:
    """(path inside the repository, parsed YAML or the YAMLError) of every data and static file of an archive.

    Raises:
        UpstreamError: not a zip file.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UpstreamError(f"{COMMITS_SOURCE} archive is not a zip file", source=COMMITS_SOURCE) from exc
    with archive:
        for name in archive.namelist():
            if not _ARCHIVE_MEMBER.match(name):
                continue
            path = name.split("/", 1)[1]
            try:
                yield path, yaml.load(archive.read(name), Loader=_loader())
            except yaml.YAMLError as exc:
                yield path, exc
