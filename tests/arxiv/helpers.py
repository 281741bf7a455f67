"""Helpers of the arXiv tests: recorded feeds and renders, and routes under the proxy base."""

from __future__ import annotations

import asyncio
from typing import Any

from scholar.core.catalogue import CallContext
from scholar.families.arxiv.handlers import HANDLERS
from tests.fixtures_dir import fixtures_dir

CTX = CallContext(principal="test", request_id="req-1")
HTML_ID = "2501.11120v1"


def feed(name: str) -> bytes:
    """A recorded Atom feed from ``upstream/arxiv/`` (e.g. ``id_list_1605.08386.xml``)."""
    return (fixtures_dir() / "upstream" / "arxiv" / name).read_bytes()


def html_render() -> bytes:
    """The recorded arxiv.org/html render of 2501.11120v1 (a LaTeXML 0.8.8 page)."""
    return (fixtures_dir() / "upstream" / "arxiv_html" / f"html_{HTML_ID}.html").read_bytes()


def pdf(name: str) -> bytes:
    """A real PDF from ``pdfs/``."""
    return (fixtures_dir() / "pdfs" / name).read_bytes()


def synthetic_feed(versioned_id: str, title: str) -> bytes:
    """SYNTHETIC: the recorded single-paper feed of 1605.08386v1 with its id and title swapped.

    No recorded id_list feed exists for the papers whose HTML render or PDF we hold; the structure is
    the real feed's, only the id, links and title are replaced.
    """
    body = feed("id_list_1605.08386.xml").decode()
    body = body.replace("1605.08386v1", versioned_id).replace("1605.08386", versioned_id.rsplit("v", 1)[0])
    return body.replace("Heat-bath random walks with Markov bases", title).encode()


def call(tool: str, model: Any) -> Any:
    """Run one handler to completion."""
    return asyncio.run(HANDLERS[tool](model, CTX))
