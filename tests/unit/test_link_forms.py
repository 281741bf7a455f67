"""Every scholarly link form of scholar.core.link_forms, tested row by row from the table itself (issue 37 item 2).

A row added to ``LINK_FORMS`` is tested the day it lands: its example must parse to what the row says, the same
path on a look-alike host must stay a URL, and its example with a query and fragment appended parses the same.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from scholar.core.ids import PaperId, parse_paper_id, record_keys
from scholar.core.link_forms import LINK_FORMS, LinkForm, identifier_in


def _expected(form: LinkForm) -> PaperId:
    written, _, version = form.parses_to.partition(" ")
    kind, _, value = written.partition(":")
    return PaperId.model_validate({"kind": kind, "value": value, "version": version or None})


@pytest.mark.parametrize("form", LINK_FORMS, ids=[f.name for f in LINK_FORMS])
def test_each_rows_example_parses_to_the_identifier_the_row_names(form):
    assert parse_paper_id(form.example) == _expected(form)


@pytest.mark.parametrize("form", LINK_FORMS, ids=[f.name for f in LINK_FORMS])
def test_each_rows_example_on_a_look_alike_host_stays_a_url(form):
    # Hosts are matched exactly: the same path under another registrable domain is nobody's publisher link.
    parts = urlsplit(form.example)
    fake = urlunsplit(parts._replace(netloc=f"{parts.netloc}.evil.example"))

    assert parse_paper_id(fake) == PaperId(kind="url", value=fake)


@pytest.mark.parametrize("form", [f for f in LINK_FORMS if f.query is None], ids=lambda f: f.name)
def test_each_rows_identifier_ends_before_the_query_and_fragment(form):
    assert parse_paper_id(form.example.rstrip("/") + "?utm_source=x&id=1#section-2") == _expected(form)


@pytest.mark.parametrize(
    ("link", "kind", "value", "version"),
    [
        ("https://www.pnas.org/doi/full/10.1073/pnas.1414271111", "doi", "10.1073/pnas.1414271111", None),
        ("https://www.pnas.org/doi/epdf/10.1073/pnas.1414271111", "doi", "10.1073/pnas.1414271111", None),
        ("https://onlinelibrary.wiley.com/doi/abs/10.1002/anie.201915678", "doi", "10.1002/anie.201915678", None),
        ("https://onlinelibrary.wiley.com/doi/10.1002/anie.201915678/full", "doi", "10.1002/anie.201915678", None),
        ("https://link.springer.com/article/10.1007/s11263-015-0816-y", "doi", "10.1007/s11263-015-0816-y", None),
        ("https://link.springer.com/chapter/10.1007/978-3-030-58452-8_13", "doi", "10.1007/978-3-030-58452-8_13", None),
        ("https://dl.acm.org/doi/10.1145/3292500.3330701", "doi", "10.1145/3292500.3330701", None),
        (
            "https://journals.plos.org/plosone/article/file?id=10.1371/journal.pone.0185809&type=printable",
            "doi",
            "10.1371/journal.pone.0185809",
            None,
        ),
        ("https://www.biorxiv.org/content/10.1101/2020.03.02.972935v2", "doi", "10.1101/2020.03.02.972935", "v2"),
        (
            "https://www.medrxiv.org/content/10.1101/2020.04.14.20062463v1.full.pdf",
            "doi",
            "10.1101/2020.04.14.20062463",
            "v1",
        ),
        (
            "https://www.biorxiv.org/content/10.1101/2020.03.02.972935.abstract",
            "doi",
            "10.1101/2020.03.02.972935",
            None,
        ),
        ("https://www.nature.com/articles/nature12373.pdf", "doi", "10.1038/nature12373", None),
        ("https://europepmc.org/abstract/MED/25489125", "pmid", "25489125", None),
        ("https://aclanthology.org/P19-1001.pdf", "acl", "P19-1001", None),
    ],
)
def test_the_page_forms_of_one_publisher_name_the_same_paper(link, kind, value, version):
    assert parse_paper_id(link) == PaperId(kind=kind, value=value, version=version)


@pytest.mark.parametrize(
    "link",
    [
        "https://www.pnas.org/toc/pnas/117/1",  # a publisher's page that names no paper
        "https://journals.plos.org/plosone/search?q=cartilage",
        "https://openreview.net/forum?id=YicbFdNTTy",  # no source we ask looks OpenReview ids up: stays a URL
        "https://www.biorxiv.org/content/early/recent",
        "https://europepmc.org/article/PPR/PPR123456",  # a Europe PMC preprint id is none of our kinds
    ],
)
def test_a_link_with_no_identifier_in_it_stays_a_url_and_is_not_fetched(link):
    assert identifier_in(link) is None
    assert parse_paper_id(link) == PaperId(kind="url", value=link)


def test_an_acl_anthology_id_is_looked_up_in_semantic_scholar_by_its_acl_form():
    assert parse_paper_id("https://aclanthology.org/2020.acl-main.1/").s2_key() == "ACL:2020.acl-main.1"
    assert parse_paper_id("ACL:P19-1001") == PaperId(kind="acl", value="P19-1001")


def test_the_research_docs_name_every_row_of_the_table():
    text = (Path(__file__).parents[2] / "docs" / "research.md").read_text(encoding="utf-8")

    assert [f.name for f in LINK_FORMS if f"| {f.name} |" not in text] == []


def test_a_record_holding_an_acl_id_is_the_paper_its_acl_link_names():
    # The lookup chain accepts S2's answer only when one of the record's ids is the one asked (chain._names).
    asked = parse_paper_id("https://aclanthology.org/P19-1001/")

    assert asked.cache_key() in record_keys("a" * 40, {"ACL": "P19-1001", "DOI": "10.18653/v1/P19-1001"})
