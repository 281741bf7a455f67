"""``scholar`` as a user runs it: a child process whose stdout is the answer and whose exit status is the code;
and, in this process on a backend held open, the library commands and the refusals."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from scholar.local.backend import entry_backend
from scholar.local.cli import main
from scholar.local.cli.output import EXIT_CODES, EXIT_OK
from tests.local.conftest import Machine

DOI = "10.1073/pnas.1414271111"  # recorded: semantic_scholar, crossref
UNKNOWN_DOI = "10.9999/nope.nothing"
TIMEOUT_S = 240


def run(machine: Machine, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(machine.command(*args), env=machine.child_env(), capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)


def test_get_paper_as_a_process_prints_only_the_json_dict_on_stdout(machine):
    done = run(machine, "get-paper", DOI, "--json")

    assert done.returncode == EXIT_OK, done.stderr[-2000:]
    assert json.loads(done.stdout)["externalIds"]["DOI"] == DOI  # stdout parses whole: nothing else was printed


def test_a_paper_no_source_knows_exits_with_the_not_found_status(machine):
    done = run(machine, "get-paper", UNKNOWN_DOI)

    assert done.returncode == EXIT_CODES["not_found"]
    assert done.stdout == ""
    assert "error [not_found]" in done.stderr


@pytest.fixture(scope="module")
def held(machine: Machine) -> Iterator[None]:
    """The backend entered once for this module's in-process commands (they use it rather than start their own)."""
    with entry_backend():
        yield


def test_an_argument_out_of_bounds_exits_invalid_and_names_the_field(held, capfd):
    status = main(["search-papers", "graphs", "--limit", "1000"])

    err = capfd.readouterr().err
    assert status == EXIT_CODES["invalid_argument"]
    assert "error [invalid_argument]" in err and "'limit'" in err


def test_a_paper_added_to_the_library_comes_back_in_the_bibtex_export(held, capfd):
    added = main(["library", "add", DOI, "--tags", "cartilage", "--json"])
    added_out = capfd.readouterr().out
    exported = main(["library", "export", "--format", "bibtex"])
    export_out = capfd.readouterr().out

    assert added == EXIT_OK and exported == EXIT_OK
    assert json.loads(added_out)["created"] is True
    assert DOI in export_out and "@article" in export_out.lower()


def test_text_is_the_default_and_reads_as_an_outline(held, capfd):
    status = main(["get-paper", DOI])

    out = capfd.readouterr().out
    assert status == EXIT_OK
    assert out.startswith("paperId: ")
    assert f"  DOI: {DOI}" in out.splitlines()


def test_sync_standards_syncs_the_bodies_named_in_any_case(held, capfd):
    status = main(["sync-standards", "--bodies", "ietf"])

    said = capfd.readouterr()
    summary = json.loads(said.out)
    assert [run["body"] for run in summary["runs"]] == ["IETF"]
    assert "standards sync: IETF" in said.err  # its progress, on stderr
    assert status == EXIT_OK and summary["published"] is True, summary["runs"]
    assert main(["sync-standards", "--bodies", "nope"]) == EXIT_CODES["invalid_argument"]


def test_library_sync_keeps_a_bib_file_in_step_on_this_machine_and_a_second_run_changes_nothing(machine, tmp_path):
    # Given a collection on the local backend and a .bib folder (issue 30: the local user's file target)
    folder = tmp_path / "bib"
    folder.mkdir()
    env = {**machine.child_env(), "SCHOLAR_BIBTEX_DIR": str(folder)}

    def scholar(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(machine.command(*args), env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
                              check=False)

    # (the paper may be in the library already, from another test of this machine: moved, not added twice)
    assert scholar("library", "add", DOI).returncode == EXIT_OK
    assert scholar("library", "update", DOI, "--collection", "sync-bib").returncode == EXIT_OK
    # When it is synced twice
    first = scholar("library", "sync", "bibtex", "--collection", "sync-bib", "--json")
    second = scholar("library", "sync", "bibtex", "--collection", "sync-bib", "--json")
    # Then the file holds the paper, the first run created it and the second changed nothing
    assert first.returncode == EXIT_OK, first.stderr[-2000:]
    assert json.loads(first.stdout)["items"]["created"] == 1
    assert json.loads(second.stdout)["items"]["created"] == 0 and json.loads(second.stdout)["items"]["unchanged"] == 1
    assert DOI in (folder / "sync-bib.bib").read_text(encoding="utf-8")


def test_a_publishers_link_gets_the_paper_its_doi_names(held, capfd):
    # Issue 37 item 2: the link a researcher copies from the publisher's page, as the CLI's get-paper takes it
    status = main(["get-paper", f"https://www.pnas.org/doi/full/{DOI}?af=R", "--json"])

    assert status == EXIT_OK, capfd.readouterr().err[-2000:]
    assert json.loads(capfd.readouterr().out)["externalIds"]["DOI"] == DOI


def test_an_openreview_link_stays_a_url_and_get_paper_says_which_tool_takes_it(held, capfd):
    # No source we ask looks up OpenReview forum ids: the link is refused as a web URL, never fetched.
    status = main(["get-paper", "https://openreview.net/forum?id=YicbFdNTTy"])

    err = capfd.readouterr().err
    assert status == EXIT_CODES["invalid_argument"]
    assert "a web URL" in err and "fetch_pdf_by_url" in err


def test_a_bib_file_imported_into_the_library_keeps_every_entry_matched_or_flagged(held, capfd):
    # Issue 37 item 4, as a user runs it: a .bib with one paper the sources know and one they cannot look up
    bib = (f"@article{{a, title = {{Developing functional musculoskeletal tissues}}, doi = {{{DOI}}}}}\n"
           "@unpublished{b, author = {Doe, Jane}, title = {My own unpublished draft}, year = 2026}\n")
    status = main(["library", "import", "--text", bib, "--collection", "bib-import", "--json"])

    out = capfd.readouterr()
    assert status == EXIT_OK, out.err[-2000:]
    answer = json.loads(out.out)
    assert (answer["format"], answer["matched"], answer["unmatched"], answer["failed"]) == ("bibtex", 1, 1, 0)
    assert [e["status"] for e in answer["entries"]] == ["matched", "unmatched"]
