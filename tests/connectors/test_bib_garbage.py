"""Garbage in (issue 40 item 6): what a user's .bib file may hold, read by the one BibTeX reader
(scholar.services.cite.bib_read) for library_sync's .bib pull and library_import, and names our generated BibTeX
must keep one author each. Every case here answered ``internal`` (or a wrong author count) before the reader."""

from __future__ import annotations

import random
import warnings

import bibtexparser
import pytest
from bibtexparser.bparser import BibTexParser
from bibtexparser.customization import splitname

from scholar.core.errors import INVALID_ARGUMENT, TOO_LARGE, InvalidArgumentError, TooLargeError
from scholar.core.records import Author, Paper
from scholar.services.cite import build_entries, to_bibtex
from scholar.services.cite.bib_read import NOT_TEXT, TOO_MANY_ENTRIES, UNDEFINED_STRING, split_names
from scholar.services.connectors.bibtex_file import papers_from_bib
from scholar.store.library.table import LibraryStore
from tests.connectors.test_sync_tools import call

LATIN1_BIB = "@article{m, author = {Müller, Jürgen and Ångström, Åsa}, title = {Über Fußgänger}, year = 1999}\n"


def test_a_latin1_bib_is_read_with_the_windows1252_fallback_not_an_internal_error():
    papers = papers_from_bib(LATIN1_BIB.encode("latin-1"), where="refs.bib")

    assert [a.name for a in papers[0].authors] == ["Jürgen Müller", "Åsa Ångström"]
    assert papers[0].title == "Über Fußgänger"


def test_random_bytes_are_an_invalid_argument_naming_the_file_and_the_rule():
    noise = random.Random(40).randbytes(2000)

    with pytest.raises(InvalidArgumentError) as caught:
        papers_from_bib(noise, where="refs.bib")

    assert caught.value.code == INVALID_ARGUMENT and caught.value.reason == NOT_TEXT
    assert caught.value.message.startswith("refs.bib is not BibTeX text")


def test_an_undefined_string_macro_is_an_invalid_argument_naming_the_macro():
    with pytest.raises(InvalidArgumentError) as caught:
        papers_from_bib("@article{a, title = {T}, journal = jbiomech}", where="refs.bib")

    assert caught.value.reason == UNDEFINED_STRING and caught.value.details["macro"] == "jbiomech"


def test_a_bib_with_more_entries_than_a_library_holds_is_refused_whole_with_both_numbers(env):
    env(SCHOLAR_LIBRARY_MAX_ITEMS="40")
    text = "\n".join(f"@misc{{k{n}, title = {{Entry {n}}}}}" for n in range(41))

    with pytest.raises(TooLargeError) as caught:
        papers_from_bib(text, where="refs.bib")

    assert caught.value.code == TOO_LARGE and caught.value.reason == TOO_MANY_ENTRIES
    assert caught.value.details == {"entries": 41, "max": 40}


@pytest.mark.usefixtures("library_table")
def test_the_bib_pull_of_a_file_past_the_library_limit_writes_nothing_and_says_why(env, tmp_path, lambda_context):
    # Before: 20,000 entries stopped at 9,990 (333 writes of 30 items, the 334th past 10,000) with "your library
    # holds 9990 items", the first 9,990 entries written. Now the file is refused whole, both numbers named.
    env.set(SCHOLAR_BIBTEX_DIR=str(tmp_path), SCHOLAR_LIBRARY_MAX_ITEMS="60")
    (tmp_path / "big.bib").write_text("\n".join(f"@misc{{k{n}, title = {{Entry {n}}}}}" for n in range(90)))

    answer = call(lambda_context, "library_sync", {"target": "bibtex", "direction": "pull", "collection": "big"})

    assert answer["error"]["code"] == TOO_LARGE and answer["error"]["details"] == {"entries": 90, "max": 60}
    assert LibraryStore("alice").revision() == 0


@pytest.mark.usefixtures("library_table")
def test_the_bib_pull_of_an_undefined_string_is_an_invalid_argument(env, tmp_path, lambda_context):
    env.set(SCHOLAR_BIBTEX_DIR=str(tmp_path))
    (tmp_path / "refs.bib").write_text("@article{a, title = {T}, journal = jbiomech}")

    answer = call(lambda_context, "library_sync", {"target": "bibtex", "direction": "pull", "collection": "refs"})

    assert answer["error"]["code"] == INVALID_ARGUMENT and answer["error"]["reason"] == UNDEFINED_STRING


@pytest.mark.usefixtures("library_table")
def test_the_bib_pull_of_a_latin1_file_reads_it_and_of_random_bytes_is_an_invalid_argument(env, tmp_path,
                                                                                         lambda_context):
    # Before: both ended in `internal` (UnicodeDecodeError): the target decoded the file as UTF-8 itself.
    env.set(SCHOLAR_BIBTEX_DIR=str(tmp_path))
    (tmp_path / "latin.bib").write_bytes(LATIN1_BIB.encode("latin-1"))
    (tmp_path / "noise.bib").write_bytes(bytes(range(256)) * 8)

    read = call(lambda_context, "library_sync", {"target": "bibtex", "direction": "pull", "collection": "latin"})
    noise = call(lambda_context, "library_sync", {"target": "bibtex", "direction": "pull", "collection": "noise"})

    assert "error" not in read, read
    assert noise["error"]["code"] == INVALID_ARGUMENT and "noise.bib" in noise["error"]["message"]


@pytest.mark.parametrize(
    ("names", "count"),
    [
        (["Kyriacos, Κυριάκος, Athanasiou, Αθανασίου"], 1),  # the author: three commas, one author
        (["Kyriacos, Κυριάκος, Athanasiou, Αθανασίου", "Jerry C. Hu"], 2),
        (["Anders Sand and Stone", "Jane Doe"], 2),
    ],
)
def test_generated_bibtex_reads_back_as_the_same_number_of_authors(names, count):
    paper = Paper(
        title="Two scripts", year=2020, authors=[Author(name=n) for n in names], externalIds={"DOI": "10.1/x"}
    )

    text = to_bibtex(build_entries([paper]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # bibtexparser 1.4 calls pyparsing's old names
        (entry,) = bibtexparser.loads(text, parser=BibTexParser(common_strings=True)).entries

    assert len(split_names(entry["author"])) == count
    for name in split_names_raw(entry["author"]):
        splitname(name, strict_mode=True)  # BibTeX's rule: at most two commas outside braces, or it raises


def split_names_raw(field: str) -> list[str]:
    """The names of a BibTeX name list as written (braces kept), split at " and " outside braces."""
    depth, start, names = 0, 0, []
    for index, char in enumerate(field):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and field.startswith(" and ", index):
            names.append(field[start:index])
            start = index + 5
    return [*names, field[start:]]


def test_a_file_with_control_characters_is_refused_even_when_it_decodes():
    # NUL and friends are valid UTF-8: a binary file that happens to decode is still no BibTeX text.
    with pytest.raises(InvalidArgumentError) as caught:
        papers_from_bib(b"@misc{a, title = {x}}\x00\x01\x02\x03", where="refs.bib")

    assert caught.value.reason == NOT_TEXT and "offset 21" in caught.value.message
