"""The reference-list readers of library_import (scholar.services.cite.references): every entry of the text, in
order, never one dropped; the format detected; a broken file refused naming the rule."""

from __future__ import annotations

import pytest
import rispy

from scholar.core.errors import InvalidArgumentError
from scholar.core.ids import parse_paper_id
from scholar.services.cite.references import detect_format, read_references

RIS_WITHOUT_LAST_ER = (
    "TY  - JOUR\nTI  - First\nER  -\nTY  - JOUR\nTI  - Second, its ER line lost\n"
    "AB  - An abstract\n  continued on a second line\n"
)


def test_a_ris_record_without_its_er_line_is_kept_where_rispy_drops_it():
    references = read_references(RIS_WITHOUT_LAST_ER, "ris", field="text", max_entries=10)

    assert len(rispy.loads(RIS_WITHOUT_LAST_ER)) == 1  # why the reader is ours
    assert [r.title for r in references] == ["First", "Second, its ER line lost"]


def test_a_ris_tag_before_any_ty_line_is_refused_naming_its_line():
    with pytest.raises(InvalidArgumentError) as caught:
        read_references("TI  - Orphan\nTY  - JOUR\nER  -\n", "ris", field="text", max_entries=10)

    assert caught.value.details == {"field": "text", "line": 1}


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ('{"format": "scholar-library-snapshot", "count": 1}\n{"item_id": "lib_0"}\n', "jsonl"),
        ('[{"id": "a", "type": "book", "title": "T"}]', "csl-json"),
        ('{"id": "a", "type": "book", "title": "T"}', "csl-json"),
        ("TY  - JOUR\nTI  - T\nER  -\n", "ris"),
        ("% my references\n@Article{a, title = {T}}", "bibtex"),
    ],
)
def test_the_format_is_detected_from_the_text(text, fmt):
    assert detect_format(text) == fmt


def test_text_in_none_of_the_formats_is_refused_naming_the_format_argument():
    with pytest.raises(InvalidArgumentError) as caught:
        detect_format("Smith J. A paper. Nature 2020.")

    assert caught.value.field == "format"


def test_a_publishers_link_in_an_entry_is_one_of_its_identifiers():
    (entry,) = read_references(
        "TY  - JOUR\nTI  - T\nUR  - https://www.pnas.org/doi/full/10.1073/pnas.1414271111\nER  -\n",
        "ris",
        field="text",
        max_entries=10,
    )

    assert parse_paper_id(entry.identifiers()[0]).value == "10.1073/pnas.1414271111"
