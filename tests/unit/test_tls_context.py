"""Certificate verification is built once per process, not once per HTTP client (sources.http.tls_context)."""

from __future__ import annotations

import ssl

import httpx
import pytest

from scholar.sources import http
from scholar.web.download import guarded_client


def test_clients_share_one_verifying_context_so_the_ca_bundle_is_loaded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[ssl.SSLContext] = []
    make = ssl.create_default_context

    def counted(*args: object, **kwargs: object) -> ssl.SSLContext:
        built.append(context := make(*args, **kwargs))  # type: ignore[arg-type]  # ssl's own arguments, passed on
        return context

    monkeypatch.setattr(ssl, "create_default_context", counted)
    http.tls_context.cache_clear()
    try:
        for source in ("s2", "openalex", "crossref"):
            http._new_client(source)
        for _ in range(3):
            guarded_client(timeout=httpx.Timeout(5), headers={})
    finally:
        http.tls_context.cache_clear()
    # one for the sources (the environment's trust store), one for the guarded fetches (certifi's only)
    assert len(built) == 2
    assert all(context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname for context in built)
