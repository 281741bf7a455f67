"""The library proxy's fixtures: the fake EZproxy serving a real recorded PDF."""

from __future__ import annotations

from functools import cache

import pytest

from tests.fakes.library_proxy import FakeLibraryProxy
from tests.fixtures_dir import fixtures_dir

PDF_NAME = "arxiv_2305.03393v1_page9_only.pdf"  # one page: the licensed paper's "publisher version"


@cache
def pdf_bytes() -> bytes:
    return (fixtures_dir() / "pdfs" / PDF_NAME).read_bytes()


@pytest.fixture
def ezproxy() -> FakeLibraryProxy:
    return FakeLibraryProxy(pdf=pdf_bytes())
