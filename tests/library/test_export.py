"""Library export (scholar.services.library.export): every format parsed by a real parser, large exports stored in S3.

BibTeX with bibtexparser 1.4, RIS with rispy, CSL-JSON validated against shared/schemas/csl-data.json; items
are recorded papers (tests/library/corpus.py).
"""

from __future__ import annotations

import json
from urllib.parse import urlparse

import jsonschema
import pytest
import rispy

from scholar.services.library import export
from scholar.services.library.keys import caller_digest
from tests.library.corpus import items
from tests.papers.test_generate_citations import csl_schema, parse_bibtex

ALICE = "apikey:alice"


def test_bibtex_export_parses_with_one_entry_per_item_and_unique_keys():
    corpus = items(40)

    parsed = parse_bibtex(export.write(corpus, "bibtex"))

    assert len(parsed.entries) == len(corpus)
    assert len({e["ID"] for e in parsed.entries}) == len(corpus)
    titles = {" ".join(e["title"].replace("{", "").replace("}", "").split()) for e in parsed.entries}
    pnas = corpus[0].paper["title"]
    assert pnas in titles


def test_ris_export_parses_with_every_author_of_each_item():
    corpus = items(40)

    records = rispy.loads(export.write(corpus, "ris"))

    assert len(records) == len(corpus)
    assert len(records[0]["authors"]) == len(corpus[0].paper["authors"])


def test_csl_json_export_validates_against_the_csl_data_schema():
    corpus = items(40)

    data = json.loads(export.write(corpus, "csl-json"))

    jsonschema.validate(data, csl_schema())
    assert [d["title"] for d in data][:1] == [corpus[0].paper["title"]]
    assert len(data) == len(corpus)


def test_the_jsonl_snapshot_starts_with_a_header_and_holds_one_item_per_line():
    corpus = items(5)

    lines = export.to_jsonl(corpus, collection="inbox").splitlines()

    header = json.loads(lines[0])
    assert (header["format"], header["version"], header["count"], header["collection"]) == (
        export.SNAPSHOT_FORMAT, export.SNAPSHOT_VERSION, 5, "inbox")
    assert header["exported_at"].endswith("Z")
    assert [json.loads(line)["item_id"] for line in lines[1:]] == [i.item_id for i in corpus]


def test_unicode_line_separators_inside_values_never_split_a_snapshot_line():
    corpus = [i.model_copy(update={"notes": "one\u2028two\u2029three\x85four"}) for i in items(3)]

    text = export.to_jsonl(corpus)

    assert len(text.splitlines()) == 4
    assert [json.loads(line)["notes"] for line in text.splitlines()[1:]] == [corpus[0].notes] * 3


def test_a_small_export_is_answered_inline(aws):
    text = export.write(items(3), "ris")

    result = export.deliver(text, "ris", 3, ALICE)

    assert (result.content, result.reference, result.url) == (text, None, None)


@pytest.mark.parametrize("fmt", ["bibtex", "csl-json", "ris", "jsonl"])
def test_an_export_of_1000_items_is_stored_under_the_callers_prefix_and_linked(aws, fmt):
    corpus = items(1000)
    text = export.write(corpus, fmt)
    assert len(text) > export.INLINE_BUDGET

    result = export.deliver(text, fmt, len(corpus), ALICE)

    assert result.content is None
    assert result.reference.startswith(f"exports/{caller_digest(ALICE)}/")
    stored = aws.s3.get_object(Bucket=aws.bucket, Key=result.reference)["Body"].read().decode()
    assert stored == text
    link = urlparse(result.url)
    assert link.path.endswith(result.reference)
    assert "Expires=" in link.query
    assert result.url_expires_s == 900
