"""Recognising the same paper: identifier normalisation, title pairing, field-by-field merge with provenance."""

from __future__ import annotations

from scholar.core.paper_identity import id_keys, surname
from scholar.core.paper_pool import Pool
from scholar.core.records import Author, Paper


def _paper(source: str, **values) -> Paper:
    return Paper(sources=[source], **values)


def test_dois_are_matched_whatever_their_case_prefix_or_url():
    a = id_keys(_paper("crossref", externalIds={"DOI": "10.1038/NATURE12373"}))
    b = id_keys(_paper("openalex", externalIds={"DOI": "https://doi.org/10.1038/nature12373"}))
    assert a == b == {"doi:10.1038/nature12373"}


def test_the_arxiv_doi_alias_and_a_versioned_arxiv_id_are_one_key():
    alias = id_keys(_paper("crossref", externalIds={"DOI": "10.48550/arXiv.2104.12255"}))
    versioned = id_keys(_paper("arxiv_api", externalIds={"ArXiv": "2104.12255v3"}))
    assert alias == versioned == {"arxiv:2104.12255"}


def test_pmids_pmcids_s2_and_openalex_ids_are_normalised():
    keys = id_keys(_paper("s2", paperId="ABCDEF0123456789ABCDEF0123456789ABCDEF01",
                          externalIds={"PubMed": "0012345", "PubMedCentral": "pmc777", "OpenAlex": "w42"}))
    assert keys == {"s2:abcdef0123456789abcdef0123456789abcdef01", "pmid:12345", "pmcid:PMC777", "openalex:W42"}


def test_surnames_are_read_from_every_name_order():
    assert surname("Ashish Vaswani") == surname("Vaswani, A.") == surname("Vaswani A") == "vaswani"


def test_identical_titles_with_consistent_year_and_first_author_are_one_work():
    pool = Pool()
    pool.add(_paper("crossref", title="Deep Residual Learning for Image Recognition", year=2016,
                    authors=[Author(name="Kaiming He")]), "crossref")
    pool.add(_paper("europepmc", title="Deep residual learning for image recognition.", year=2016,
                    authors=[Author(name="He K")]), "europepmc")
    assert len(pool.alive()) == 1
    assert pool.alive()[0].found_by == {"crossref", "europepmc"}


def test_identical_titles_by_different_first_authors_stay_apart():
    pool = Pool()
    pool.add(_paper("crossref", title="A survey of graph neural networks", year=2020,
                    authors=[Author(name="Ann Smith")]), "crossref")
    pool.add(_paper("openalex", title="A Survey of Graph Neural Networks", year=2020,
                    authors=[Author(name="Bo Chen")]), "openalex")
    assert len(pool.alive()) == 2


def test_a_preprint_and_its_published_version_share_one_slot_with_the_published_venue():
    pool = Pool()
    pool.add(_paper("arxiv_api", title="Attention Is All You Need", year=2017, venue="arXiv",
                    publicationTypes=["preprint"], authors=[Author(name="Ashish Vaswani")],
                    externalIds={"ArXiv": "1706.03762v5"}), "arxiv_api")
    pool.add(_paper("crossref", title="Attention is all you need", year=2017, venue="NeurIPS",
                    authors=[Author(name="Ashish Vaswani")], externalIds={"DOI": "10.5555/3295222.3295349"}),
             "crossref")
    (work,) = pool.alive()
    record = work.record()
    assert record.venue == "NeurIPS" and work.provenance["venue"] == "crossref"
    assert record.externalIds == {"ArXiv": "1706.03762v5", "DOI": "10.5555/3295222.3295349"}


def test_fields_come_from_the_most_trusted_source_and_citations_from_the_highest_count():
    pool = Pool()
    pool.add(_paper("crossref", title="Some work on graphs", venue="J. Graphs", citationCount=40,
                    externalIds={"DOI": "10.1234/x"}), "crossref")
    pool.add(_paper("s2", title="Some Work on Graphs", citationCount=35, abstract="About graphs.",
                    externalIds={"DOI": "10.1234/X"}), "s2")
    (work,) = pool.alive()
    assert work.provenance == {"title": "s2", "venue": "crossref", "citationCount": "crossref", "abstract": "s2"}
    assert work.record().citationCount == 40


def test_a_lookup_completing_a_record_never_counts_as_another_source_agreeing():
    pool = Pool()
    pool.add(_paper("openalex", title="Graph work", externalIds={"DOI": "10.1234/x"}), "openalex")
    pool.add(_paper("s2", title="Graph work", abstract="Filled in.", externalIds={"DOI": "10.1234/x"}), "s2",
             finding=False)
    (work,) = pool.alive()
    assert work.found_by == {"openalex"}
    assert work.provenance["abstract"] == "s2"


def test_a_record_carrying_two_known_ids_joins_the_two_candidates_they_named():
    pool = Pool()
    pool.add(_paper("arxiv_api", title="One", externalIds={"ArXiv": "2101.00001"}), "arxiv_api")
    pool.add(_paper("crossref", title="Two", externalIds={"DOI": "10.1234/joined"}), "crossref")
    pool.add(_paper("s2", title="One", externalIds={"ArXiv": "2101.00001", "DOI": "10.1234/joined"}), "s2")
    (work,) = pool.alive()
    assert work.found_by == {"arxiv_api", "crossref", "s2"}
