"""The Python API: ``from scholar import Scholar`` and its async twin, methods made from the catalogue."""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scholar.core.errors import ForbiddenError, InvalidArgumentError, NotFoundError
from tests.local.conftest import Machine

DOI = "10.1073/pnas.1414271111"


def test_import_scholar_loads_nothing_until_the_api_is_asked_for():
    probe = ("import sys, scholar; before = {m for m in sys.modules if m.startswith(('scholar.', 'pydantic'))}; "
             "from scholar import Scholar; print(sorted(before), Scholar.__module__)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)

    assert done.stdout.strip() == "[] scholar.local.api"


@pytest.fixture(scope="module")
def scholar_api(machine: Machine) -> Iterator[object]:
    from scholar import Scholar

    with Scholar() as api:
        yield api


def test_a_method_per_tool_with_its_parameters_and_description(scholar_api):
    method = scholar_api.get_paper
    signature = inspect.signature(method)

    assert "get_paper" in dir(scholar_api) and "library_export" in dir(scholar_api)
    assert list(signature.parameters) == ["identifier"]
    assert signature.parameters["identifier"].kind is inspect.Parameter.KEYWORD_ONLY
    assert method.__doc__.startswith("Full metadata of one paper")
    with pytest.raises(AttributeError):
        scholar_api.no_such_tool  # noqa: B018  # reading the attribute is what must fail


def test_methods_return_the_tools_dict_and_raise_the_error_of_its_code(scholar_api):
    paper = scholar_api.get_paper(identifier=DOI)

    assert paper["externalIds"]["DOI"] == DOI
    assert paper == scholar_api.call("get_paper", identifier=DOI)
    with pytest.raises(NotFoundError):
        scholar_api.get_paper(identifier="10.9999/nope.nothing")
    with pytest.raises(InvalidArgumentError) as refused:
        scholar_api.search_papers(query="graphs", limit=1000)
    assert refused.value.field == "limit"


def test_the_async_twin_runs_calls_side_by_side(scholar_api):
    from scholar import AsyncScholar

    async def both() -> list[dict]:
        async with AsyncScholar() as api:
            return await asyncio.gather(api.get_paper(identifier=DOI), api.call("get_paper", identifier=DOI))

    first, second = asyncio.run(both())

    assert first == second
    assert first["externalIds"]["DOI"] == DOI


def test_upload_pdf_without_a_server_says_to_give_the_path_instead(scholar_api):
    from scholar.core.errors import UnavailableError
    from scholar.services.fulltext.upload_link import NO_SERVER

    with pytest.raises(UnavailableError) as refused:
        scholar_api.upload_pdf()
    assert refused.value.reason == NO_SERVER and "path" in (refused.value.hint or "")


def test_a_pdf_on_this_machine_is_kept_by_its_path(scholar_api, monkeypatch):
    from scholar.core.config import get_settings
    from tests.fixtures_dir import fixtures_dir

    pdf = fixtures_dir() / "pdfs" / "arxiv_2304.02623v1_beyond_summarization.pdf"
    if not pdf.is_file():
        pytest.skip(f"the shared fixtures are absent ({pdf})")
    monkeypatch.setenv("SCHOLAR_PDF_FOLDERS", str(pdf.parent))
    get_settings.cache_clear()
    try:
        added = scholar_api.library_add(identifier=f"file://{pdf}", tags=["mine"])
        with pytest.raises(ForbiddenError):
            scholar_api.read_paper(identifier=str(Path(pdf.parent).parent / "PROVENANCE.md"))
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    assert added["item"]["paper"]["title"].startswith("Beyond Summarization") and added["item"]["tags"] == ["mine"]
    assert added["item"]["pdfs"][0]["pdf_path"].startswith("mine/")
