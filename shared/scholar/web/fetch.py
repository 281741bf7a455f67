"""Downloading one candidate URL: our own upstreams through their configured base, everything else SSRF-guarded.

A candidate whose host is the public host of a registry source (``arxiv.org`` → ``arxiv``, ``www.ebi.ac.uk``
→ ``europepmc`` …) is fetched from ``scholar.sources.registry.base_url(source)`` + the same path and query,
so a proxy base, a mirror or the fake upstream in tests serves it; only that base's own host is exempt from
the address check, and every redirect is vetted again. Any other host (a publisher, a repository, a caller's
URL) goes through ``scholar.web.download`` with the test-only allow-list and nothing else. URLs a caller
typed are never rewritten (DESIGN §12): ``fetch_candidate(..., trusted_routing=False)``.

Tests may replace the resolver and transport used for other hosts with ``set_web_access`` (like
``scholar.sources.http.set_transport_factory``): the stand-in for "the internet" on a machine that has none.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

import httpx

from scholar.core.config import get_settings
from scholar.sources.registry import SOURCES, base_url
from scholar.web.download import DownloadedPdf, download_pdf
from scholar.web.ssrf import Resolver

# Public hosts that serve a registry source besides its default base host.
HOST_ALIASES = {"www.arxiv.org": "arxiv", "export.arxiv.org": "arxiv_api"}


@dataclass(frozen=True)
class WebAccess:
    """How hosts outside our registry are reached (tests inject a resolver and a transport)."""

    resolver: Resolver | None = None
    transport: Callable[[], httpx.AsyncBaseTransport] | None = None


_web = WebAccess()


def web_access() -> WebAccess:
    """How hosts outside our registry are reached now (tools vet a caller's URL with its resolver)."""
    return _web


def set_web_access(access: WebAccess | None) -> None:
    """Replace the resolver/transport for non-registry hosts (tests); None restores the real network."""
    global _web
    _web = access or WebAccess()


@cache
def _hosts() -> dict[str, str]:
    hosts = {urlsplit(s.default_base).hostname or "": s.name for s in SOURCES.values() if s.default_base}
    hosts.pop("", None)
    return {**hosts, **HOST_ALIASES}


def registry_source(url: str) -> str | None:
    """The registry source whose public host serves ``url``, or None."""
    host = (urlsplit(url).hostname or "").lower()
    return _hosts().get(host)


def routed_url(url: str) -> tuple[str, str | None]:
    """``url`` rewritten onto its registry source's configured base, and that source (or None if unknown)."""
    source = registry_source(url)
    if source is None:
        return url, None
    parts = urlsplit(url)
    rest = parts.path + (f"?{parts.query}" if parts.query else "")
    return base_url(source) + rest, source


def _host_port(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{(parts.hostname or '').lower()}:{port}"


async def fetch_candidate(
    url: str, *, trusted_routing: bool = True, dest_dir: str | os.PathLike[str] | None = None
) -> DownloadedPdf:
    """Download ``url`` if it is a real PDF within the configured caps.

    Args:
        url: a candidate URL from an upstream payload, or a caller's URL.
        trusted_routing: map registry hosts to their configured base (False for caller-typed URLs).
        dest_dir: where the temporary file goes.

    Raises:
        ScholarError: the reasons of ``scholar.web.download.download_pdf`` (the caller records them).
    """
    settings = get_settings()
    allow = set(settings.test_allow_hosts)
    resolver, transport = _web.resolver, _web.transport
    target, source = routed_url(url) if trusted_routing else (url, None)
    if source is not None:
        if base_url(source, settings) != SOURCES[source].default_base:
            allow.add(_host_port(target))  # a base we were configured with (a mirror; the fake upstream in tests)
        resolver, transport = None, None
    return await download_pdf(
        target,
        max_bytes=settings.pdf_max_bytes,
        timeout_s=settings.pdf_timeout_s,
        allow_hosts=frozenset(allow),
        resolver=resolver,
        transport=transport() if transport else None,
        dest_dir=dest_dir,
        user_agent=settings.user_agent,
    )
