"""``scholar get-paper`` and ``scholar check-references`` with what a researcher has in hand: a title or a citation
(issue 37). The fake upstream serves its recordings; none of them holds the made-up title below."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from scholar.local.backend import entry_backend
from scholar.local.cli import main
from scholar.local.cli.output import EXIT_CODES
from tests.local.conftest import Machine

NO_SUCH_TITLE = "Askldjrq qwertyuiop zxcvbnm asdfghjkl"


@pytest.fixture(scope="module")
def held(machine: Machine) -> Iterator[None]:
    with entry_backend():
        yield


def test_a_title_is_matched_not_refused_and_names_the_sources_it_asked(held, capfd):
    status = main(["get-paper", NO_SUCH_TITLE, "--json"])

    err = capfd.readouterr().err
    assert status == EXIT_CODES["not_found"], err
    assert "error [not_found]" in err and "asked crossref, openalex, europepmc, s2" in err


def test_check_references_answers_each_reference_with_its_status(held, capfd):
    status = main(["check-references", NO_SUCH_TITLE, "--json"])

    out = capfd.readouterr().out
    assert status == 0, out
    answer = json.loads(out)
    assert [item["status"] for item in answer["items"]] == ["unmatched"]
    assert answer["summary"] == {"unmatched": 1}
