"""library_import of a reference list a user has (BibTeX, RIS, CSL-JSON; issue 37 item 4) through the research
function: each entry matched to its record by its identifier (recorded S2 answers) or kept as written, tagged
unmatched; never dropped; importing twice changes nothing; a failed lookup is completed by importing again."""

from __future__ import annotations

import json

import pytest

from scholar.core.errors import INVALID_ARGUMENT, TOO_LARGE
from scholar.families.research.library_tools import index_handlers
from scholar.services.cite.bib_read import TOO_MANY_ENTRIES, UNDEFINED_STRING
from scholar.services.cite.references import paper_of, read_references
from scholar.services.library.reference_import import MATCH_TAG, EntryOutcome, _write
from scholar.store.library.table import ItemExistsError, LibraryStore
from tests.fallbacks import answer_nothing
from tests.library.corpus import items
from tests.library.tools import call, fresh_index  # noqa: F401  # fresh_index: a fixture the tests name

pytestmark = pytest.mark.usefixtures("library_table", "fresh_index")
ALICE = "apikey:alice"
PNAS_DOI = "10.1073/pnas.1414271111"
UNKNOWN_DOI = "10.9999/nope.nothing"
JSON = {"Content-Type": "application/json"}
NO_ID_TITLE = "Notes towards a theory of everything"

BIBTEX = f"""@article{{athanasiou2015,
  author = {{Athanasiou, Kyriacos A. and Hu, Jerry C.}},
  title = {{Developing functional musculoskeletal tissues}},
  journal = {{PNAS}}, year = {{2015}}, doi = {{{PNAS_DOI}}}
}}
@misc{{nobody2024, author = {{Nobody, A.}}, title = {{A paper no source holds}}, year = 2024, doi = {{{UNKNOWN_DOI}}}}}
@unpublished{{me2025, author = {{{{Athanasiou, Αθανασίου}}, {{Kyriacos, Κυριάκος}}}}, title = {{{NO_ID_TITLE}}},
  year = {{2025}}, note = {{draft}}}}
"""
RIS = f"""TY  - JOUR
AU  - Athanasiou, Kyriacos A.
TI  - Developing functional musculoskeletal tissues
PY  - 2015
DO  - {PNAS_DOI}
ER  -
TY  - GEN
AU  - Nobody, A.
TI  - A paper no source holds
PY  - 2024
DO  - {UNKNOWN_DOI}
ER  -
TY  - UNPB
AU  - Athanasiou, Kyriacos
TI  - {NO_ID_TITLE}
PY  - 2025
ER  -
"""
CSL = json.dumps(
    [
        {
            "id": "a",
            "type": "article-journal",
            "title": "Developing functional musculoskeletal tissues",
            "DOI": PNAS_DOI,
            "author": [{"family": "Athanasiou", "given": "Kyriacos A."}],
            "issued": {"date-parts": [[2015]]},
        },
        {"id": "b", "type": "article", "title": "A paper no source holds", "DOI": UNKNOWN_DOI},
        {
            "id": "c",
            "type": "manuscript",
            "title": NO_ID_TITLE,
            "author": [{"literal": "Kyriacos Athanasiou"}],
            "issued": {"date-parts": [["2025"]]},
        },
    ]
)


@pytest.fixture
def recorded(upstream, fixture_file):
    """S2 knows the PNAS paper (recorded); no source knows the unknown DOI (recorded 404s)."""
    answer_nothing(upstream, openalex=True, titles=True)
    upstream.get(f"/s2/graph/v1/paper/DOI:{UNKNOWN_DOI}").respond(
        404, content=fixture_file("upstream/semantic_scholar/paper_by_doi_not_found_404.json"), headers=JSON
    )
    return upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(
        200, content=fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"), headers=JSON
    )


@pytest.mark.parametrize(("fmt", "text"), [("bibtex", BIBTEX), ("ris", RIS), ("csl-json", CSL)])
def test_every_entry_is_matched_or_kept_as_written_with_a_flag_and_a_second_import_changes_nothing(recorded, fmt, text):
    first = call("library_import", ALICE, text=text, collection="thesis")["result"]
    second = call("library_import", ALICE, text=text, collection="thesis")["result"]

    assert first["format"] == fmt  # detected: no format given
    assert (first["items"], first["matched"], first["unmatched"], first["failed"]) == (3, 1, 2, 0)
    assert [e["status"] for e in first["entries"]] == ["matched", "unmatched", "unmatched"]
    assert (first["added"], second["added"], second["skipped"]) == (3, 0, 3)
    stored = {i.item_id: i for i in LibraryStore(ALICE).iter_items()}
    assert len(stored) == 3  # never dropped, never doubled
    matched, unknown, no_id = (stored[e["item_id"]] for e in first["entries"])
    assert len(matched.paper["authors"]) == 5 and MATCH_TAG not in matched.tags  # the record, not the entry
    assert unknown.tags == [MATCH_TAG] and unknown.paper["externalIds"]["DOI"] == UNKNOWN_DOI
    assert no_id.tags == [MATCH_TAG] and no_id.paper["title"] == NO_ID_TITLE and no_id.paper["year"] == 2025
    assert no_id.paper["sources"] == [fmt] and len(no_id.paper["authors"]) == 1


def test_an_entry_whose_lookup_failed_is_kept_and_importing_again_replaces_it_by_the_record(
    upstream, env, fixture_file
):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    answer_nothing(upstream, openalex=True)
    # S2's 429 answer: status and Retry-After matter (no recorded body exists; S2 sends this JSON shape).
    throttled = upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(
        429, headers={"Retry-After": "30"}, json={"message": "Too Many Requests"}
    )
    entry = f"@article{{a, title = {{Developing functional tissues}}, doi = {{{PNAS_DOI}}}}}"

    first = call("library_import", ALICE, text=entry, format="bibtex")["result"]
    throttled.respond(
        200, content=fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"), headers=JSON
    )
    again = call("library_import", ALICE, text=entry, format="bibtex")["result"]

    assert (first["failed"], first["added"], first["entries"][0]["status"]) == (1, 1, "failed")
    assert (again["matched"], again["updated"], again["added"]) == (1, 1, 0)
    (item,) = LibraryStore(ALICE).iter_items()
    assert MATCH_TAG not in item.tags and len(item.paper["authors"]) == 5


def test_an_undefined_string_macro_is_an_invalid_argument_naming_it_and_nothing_is_written():
    answer = call("library_import", ALICE, text="@article{a, title = {T}, journal = jbiomech, year = 2020}")

    assert answer["error"]["code"] == INVALID_ARGUMENT and answer["error"]["reason"] == UNDEFINED_STRING
    assert "jbiomech" in answer["error"]["message"]
    assert LibraryStore(ALICE).revision() == 0


def test_text_in_no_known_format_and_a_format_for_a_snapshot_are_refused_naming_the_field():
    unknown = call("library_import", ALICE, text="just some words")
    misplaced = call("library_import", ALICE, jsonl='{"format": "x"}', format="ris")

    assert unknown["error"]["code"] == INVALID_ARGUMENT and unknown["error"]["details"]["field"] == "format"
    assert misplaced["error"]["code"] == INVALID_ARGUMENT and misplaced["error"]["details"]["field"] == "format"


def test_an_import_past_the_librarys_item_limit_is_refused_before_anything_is_written(env, upstream):
    # (the store alone would write a first transaction of 30 items and refuse the rest: 30 kept of 35)
    env(SCHOLAR_LIBRARY_MAX_ITEMS="31")
    answer_nothing(upstream, openalex=True, titles=True)  # their titles are matched first: no source knows them
    entries = "\n".join(f"@misc{{k{n}, title = {{Entry number {n} of a list}}}}" for n in range(35))

    answer = call("library_import", ALICE, text=entries)

    assert answer["error"]["code"] == TOO_LARGE and answer["error"]["details"]["adding"] == 35
    assert LibraryStore(ALICE).revision() == 0


def test_a_jsonl_snapshot_given_as_text_is_detected_and_imported_as_a_snapshot():
    LibraryStore("apikey:bob").put_many(items(3))
    snapshot = call("library_export", "apikey:bob", format="jsonl")["result"]["content"]

    answer = call("library_import", ALICE, text=snapshot)["result"]

    assert (answer["format"], answer["items"], answer["added"]) == ("jsonl", 3, 3)


BATCHED = ["10.2139/ssrn.288970", "10.2139/ssrn.2250500", "10.1257/rct.1355"]  # rows 1-3 of the recorded batch


def _csl(dois: list[str]) -> str:
    return json.dumps([{"id": f"r{n}", "type": "article", "title": f"Entry {n}", "DOI": d} for n, d in enumerate(dois)])


@pytest.fixture
def batch(upstream, fixture_file):
    """S2's recorded /paper/batch answer (a null row, then three records); every DOI alone is unknown."""
    answer_nothing(upstream, openalex=True)
    for doi in [UNKNOWN_DOI, *BATCHED]:
        upstream.get(f"/s2/graph/v1/paper/DOI:{doi}").respond(
            404, content=fixture_file("upstream/semantic_scholar/paper_by_doi_not_found_404.json"), headers=JSON
        )
    return upstream.post("/s2/graph/v1/paper/batch").respond(
        200,
        content=fixture_file("upstream/semantic_scholar/paper_batch_many_fields_with_unknown_id.json"),
        headers=JSON,
    )


def test_many_identifiers_are_matched_by_one_batch_request_and_a_null_row_is_looked_up_alone(batch):
    answer = call("library_import", ALICE, text=_csl([UNKNOWN_DOI, *BATCHED]))["result"]

    assert batch.call_count == 1
    assert [e["status"] for e in answer["entries"]] == ["unmatched", "matched", "matched", "matched"]
    stored = {i.paper["externalIds"]["DOI"].lower() for i in LibraryStore(ALICE).iter_items()}
    assert stored == {UNKNOWN_DOI, *BATCHED}


def test_a_batch_row_naming_another_paper_is_not_taken_for_the_entry(batch):
    # The rows answer ssrn.288970 then ssrn.2250500: asked the other way round, neither row names its entry.
    answer = call("library_import", ALICE, text=_csl([UNKNOWN_DOI, BATCHED[1], BATCHED[0], BATCHED[2]]))["result"]

    assert [e["status"] for e in answer["entries"]] == ["unmatched", "unmatched", "unmatched", "matched"]


def test_an_item_another_writer_adds_meanwhile_is_never_overwritten_by_the_import():
    # Given another writer that adds the same paper between the import's read and its write
    class Racing(LibraryStore):
        raced = False

        def put_many(self, items, *, create_only=False, keep_times=False):
            if create_only and not self.raced:
                self.raced = True
                theirs = items[0].model_copy(update={"tags": ["theirs"]})
                super().put_many([theirs])
                raise ItemExistsError(theirs)
            return super().put_many(items, create_only=create_only, keep_times=keep_times)

    (entry,) = read_references(f"@misc{{a, title = {{{NO_ID_TITLE}}}}}", "bibtex", field="text", max_entries=5)
    outcome = EntryOutcome(index=0, key="a", title=NO_ID_TITLE, status="unmatched")

    _write(Racing(ALICE), [(outcome, paper_of(entry, "bibtex"), "lib_" + "0" * 20)], "inbox")

    (item,) = LibraryStore(ALICE).iter_items()
    assert item.tags == ["theirs"] and outcome.written == "skipped"


@pytest.mark.parametrize("fmt", ["bibtex", "ris"])
def test_more_entries_than_a_call_takes_are_refused_naming_both_numbers(monkeypatch, fmt):
    monkeypatch.setattr(index_handlers, "MAX_IMPORT_ENTRIES", 2)
    text = {
        "bibtex": "@misc{a, title={A}}\n@misc{b, title={B}}\n@misc{c, title={C}}",
        "ris": "TY  - GEN\nTI  - A\nER  -\nTY  - GEN\nTI  - B\nER  -\nTY  - GEN\nTI  - C\nER  -\n",
    }[fmt]

    answer = call("library_import", ALICE, text=text)

    assert answer["error"]["code"] == TOO_LARGE and answer["error"]["reason"] == TOO_MANY_ENTRIES
    assert answer["error"]["details"] == {"entries": 3, "max": 2}
    assert LibraryStore(ALICE).revision() == 0


def test_an_entry_without_an_identifier_is_matched_by_its_checked_title_or_kept_as_written(upstream, fixture_file):
    # Crossref's recorded answer to the title query holds the paper (title, first author and year agree)
    upstream.get(url__regex=r".*/crossref/works\?query\.bibliographic=Effect.*").respond(
        200, content=fixture_file("upstream/crossref/works_query_title_rows1.json"), headers=JSON)
    answer_nothing(upstream, openalex=True, titles=True)  # after: respx answers with the first route that matches
    bib = """@article{skarlinski2015,
  author = {Skarlinski, Michael D. and Quesnel, David J.},
  title = {Effect of native oxide layers on copper thin-film tensile properties: A reactive molecular dynamics study},
  journal = {Journal of Applied Physics}, year = {2015}}
@misc{wrongyear, author = {Skarlinski, Michael D.}, year = {2009},
  title = {Effect of native oxide layers on copper thin-film tensile properties: A reactive molecular dynamics study}}
"""

    result = call("library_import", ALICE, text=bib, collection="thesis")["result"]

    matched, other_year = result["entries"]
    assert matched["status"] == "matched" and other_year["status"] == "unmatched"  # six years off: not that paper
    item = {i.item_id: i for i in LibraryStore(ALICE).iter_items()}[matched["item_id"]]
    assert item.paper["externalIds"]["DOI"].lower() == "10.1063/1.4938384" and MATCH_TAG not in item.tags
