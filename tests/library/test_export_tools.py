"""library_export through the research function, on the real LibraryStore (moto)."""

from __future__ import annotations

import json

import jsonschema
import pytest
import rispy

from scholar.core.errors import NOT_FOUND
from scholar.services.library.keys import caller_digest
from scholar.store.library.table import LibraryStore
from tests.library.corpus import items
from tests.library.tools import call, fresh_index  # noqa: F401  # fresh_index: a fixture the tests name
from tests.papers.test_generate_citations import csl_schema, parse_bibtex

pytestmark = pytest.mark.usefixtures("library_table", "fresh_index")
ALICE = "apikey:alice"


def test_a_collection_exports_inline_as_bibtex_ris_and_csl_json_holding_only_its_items():
    corpus = items(30)
    LibraryStore(ALICE).put_many([i.model_copy(update={"collection": "thesis" if n < 12 else "inbox"})
                                  for n, i in enumerate(corpus)])

    bib = call("library_export", ALICE, format="bibtex", collection="thesis")["result"]
    ris = call("library_export", ALICE, format="ris", collection="thesis")["result"]
    csl = call("library_export", ALICE, format="csl-json", collection="thesis")["result"]

    assert bib["count"] == ris["count"] == csl["count"] == 12
    assert len(parse_bibtex(bib["content"]).entries) == 12
    assert len(rispy.loads(ris["content"])) == 12
    data = json.loads(csl["content"])
    jsonschema.validate(data, csl_schema())
    assert sorted(d["title"] for d in data) == sorted(i.paper["title"] for i in corpus[:12])


def test_an_export_over_the_size_budget_answers_a_reference_and_a_link_instead_of_the_text(aws):
    # 200 items make a 95,000-character snapshot (test_export.py exports 1,000 items in every format).
    LibraryStore(ALICE).put_many(items(200))

    result = call("library_export", ALICE, format="jsonl")["result"]

    assert result["count"] == 200 and "content" not in result
    assert result["reference"].startswith(f"exports/{caller_digest(ALICE)}/") and result["reference"].endswith(".jsonl")
    assert result["url"].startswith("https://") and result["url_expires_s"] == 900
    stored = aws.s3.get_object(Bucket=aws.bucket, Key=result["reference"])["Body"].read().decode()
    assert len(stored) == result["chars"] and len(stored.splitlines()) == 201


def test_exporting_a_collection_the_caller_does_not_have_is_not_found():
    LibraryStore(ALICE).put_many(items(3))

    answer = call("library_export", ALICE, format="ris", collection="nowhere")

    assert answer["error"]["code"] == NOT_FOUND


def test_an_empty_library_exports_an_empty_snapshot():
    result = call("library_export", ALICE, format="jsonl")["result"]

    header = json.loads(result["content"].splitlines()[0])
    assert (result["count"], header["count"]) == (0, 0)
