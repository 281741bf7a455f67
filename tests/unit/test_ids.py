"""Identifier parsing (scholar.core.ids); the identifiers are real ones from the recorded fixtures and seeds."""

import pytest

from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.core.ids import (
    InvalidIdError,
    PaperId,
    isbn13_to_isbn10,
    parse_arxiv_id,
    parse_isbn,
    parse_paper_id,
    parse_patent_number,
    record_keys,
    written_ids,
)

S2_ID = "0f40b1f08821e22e859c6050916cec3667778613"


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("10.1038/nature12373", "10.1038/nature12373"),
        ("doi:10.1371/journal.pone.0033693", "10.1371/journal.pone.0033693"),
        ("DOI:10.1145/3442188", "10.1145/3442188"),
        ("DOI: 10.1073/pnas.1414271111", "10.1073/pnas.1414271111"),
        ("https://doi.org/10.1038/s42256-024-00832-8", "10.1038/s42256-024-00832-8"),
        ("http://dx.doi.org/10.1109/ICDCSW.2003.1203662", "10.1109/icdcsw.2003.1203662"),
        ("https://doi.org/10.1038%2Fs42256-024-00832-8", "10.1038/s42256-024-00832-8"),
        ("doi.org/10.3892/ijo_00000353", "10.3892/ijo_00000353"),
        ("10.1126/science.169.3946.635.", "10.1126/science.169.3946.635"),
        ("10.2139/ssrn.2250500)", "10.2139/ssrn.2250500"),
        ("10.1016/S0140-6736(20)30183-5", "10.1016/s0140-6736(20)30183-5"),
        (
            "10.1002/(SICI)1097-4547(19960215)43:4<439::AID-JNR5>3.0.CO;2-G",
            "10.1002/(sici)1097-4547(19960215)43:4<439::aid-jnr5>3.0.co;2-g",
        ),
    ],
)
def test_dois_in_every_form_normalise_to_the_lowercase_bare_doi(raw, value):
    assert parse_paper_id(raw) == PaperId(kind="doi", value=value)


@pytest.mark.parametrize(
    ("raw", "value", "version"),
    [
        ("2104.12255", "2104.12255", None),
        ("2104.12255v1", "2104.12255", "v1"),
        ("0704.0001", "0704.0001", None),
        ("arXiv:1706.03762", "1706.03762", None),
        ("ARXIV:1605.08386", "1605.08386", None),
        ("arxiv:2501.11120V1", "2501.11120", "v1"),
        ("https://arxiv.org/abs/2104.12255v1", "2104.12255", "v1"),
        ("https://arxiv.org/pdf/2206.01062v1.pdf", "2206.01062", "v1"),
        ("http://export.arxiv.org/abs/astro-ph/0601001", "astro-ph/0601001", None),
        ("arxiv.org/abs/1707.08567", "1707.08567", None),
        ("astro-ph/0601001", "astro-ph/0601001", None),
        ("hep-th/9901001", "hep-th/9901001", None),
        ("quant-ph/0201082v1", "quant-ph/0201082", "v1"),
        ("math.GT/0309136", "math/0309136", None),
        ("10.48550/arXiv.2312.07559", "2312.07559", None),
        ("https://doi.org/10.48550/arxiv.2312.07559", "2312.07559", None),
        ("doi:10.48550/arXiv.hep-th/9901001", "hep-th/9901001", None),
    ],
)
def test_arxiv_ids_new_legacy_versioned_and_as_urls_or_datacite_dois(raw, value, version):
    assert parse_arxiv_id(raw) == (value, version)
    assert parse_paper_id(raw) == PaperId(kind="arxiv", value=value, version=version)


@pytest.mark.parametrize("raw", ["abc", "2104.123", "12345.6789", "hep-th/990100", "arXiv:", "2104.12255v"])
def test_malformed_arxiv_ids_are_rejected(raw):
    with pytest.raises(InvalidIdError):
        parse_arxiv_id(raw)


@pytest.mark.parametrize(
    ("raw", "kind", "value"),
    [
        ("PMID:15723116", "pmid", "15723116"),
        ("pmid: 20098740", "pmid", "20098740"),
        ("PMCID:PMC12069736", "pmcid", "PMC12069736"),
        ("PMCID:12106854", "pmcid", "PMC12106854"),
        ("pmc12120539", "pmcid", "PMC12120539"),
        ("CorpusId:470667", "corpus", "470667"),
        ("CorpusID:14514057", "corpus", "14514057"),
        ("ACM:3442188", "acm", "3442188"),
        ("MAG:2741809807", "mag", "2741809807"),
        (S2_ID, "s2", S2_ID),
        (S2_ID.upper(), "s2", S2_ID),
        ("W2741809807", "openalex", "W2741809807"),
        ("openalex:w2741809807", "openalex", "W2741809807"),
        ("https://openalex.org/W2741809807", "openalex", "W2741809807"),
        ("https://api.openalex.org/works/W2741809807", "openalex", "W2741809807"),
        ("https://pubmed.ncbi.nlm.nih.gov/15723116/", "pmid", "15723116"),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC12069736/", "pmcid", "PMC12069736"),
        (f"https://www.semanticscholar.org/paper/Attention-Vaswani/{S2_ID}", "s2", S2_ID),
        ("https://example.org/papers/42.pdf", "url", "https://example.org/papers/42.pdf"),
    ],
)
def test_database_ids_and_urls_parse_to_their_kind(raw, kind, value):
    assert parse_paper_id(raw) == PaperId(kind=kind, value=value)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("doi:10.1145/3442188", "DOI:10.1145/3442188"),
        ("arXiv:2104.12255v1", "ARXIV:2104.12255"),
        ("PMID:15723116", "PMID:15723116"),
        ("PMC12069736", "PMCID:PMC12069736"),
        ("CorpusId:470667", "CorpusId:470667"),
        ("ACM:3442188", "ACM:3442188"),
        ("MAG:2741809807", "MAG:2741809807"),
        (S2_ID, S2_ID),
    ],
)
def test_s2_key_is_the_form_the_semantic_scholar_graph_api_accepts(raw, key):
    assert parse_paper_id(raw).s2_key() == key


@pytest.mark.parametrize("raw", ["ISBN:9780262035613", "EP2400812A1", "W2741809807", "https://example.org/x"])
def test_s2_key_refuses_kinds_semantic_scholar_cannot_look_up(raw):
    with pytest.raises(ValueError):
        parse_paper_id(raw).s2_key()


def test_cache_key_is_the_same_for_every_form_of_one_identifier():
    forms = ["10.1038/nature12373", "doi:10.1038/NATURE12373", "https://doi.org/10.1038/nature12373"]
    assert {parse_paper_id(raw).cache_key() for raw in forms} == {"doi:10.1038/nature12373"}
    assert parse_paper_id("arXiv:2104.12255v1").cache_key() == parse_paper_id("2104.12255").cache_key()


def test_paper_id_is_frozen_and_hashable():
    paper_id = parse_paper_id("PMC12069736")
    assert hash(paper_id) == hash(PaperId(kind="pmcid", value="PMC12069736"))
    with pytest.raises(ValueError):
        paper_id.value = "PMC1"  # type: ignore[misc]  # pydantic frozen model must refuse the write


@pytest.mark.parametrize(
    ("raw", "isbn13"),
    [
        ("9780262035613", "9780262035613"),
        ("0262035618", "9780262035613"),
        ("ISBN:9780099560432", "9780099560432"),
        ("978-0-12-064481-0", "9780120644810"),
        ("ISBN-10: 0-12-064481-9", "9780120644810"),
        ("ISBN 0 06 027322 4", "9780060273224"),
        ("080442957X", "9780804429573"),
        ("080442957x", "9780804429573"),
        ("9791032305690", "9791032305690"),
    ],
)
def test_isbns_with_hyphens_spaces_prefixes_and_x_check_digit_normalise_to_isbn13(raw, isbn13):
    assert parse_isbn(raw) == isbn13
    assert parse_paper_id(raw) == PaperId(kind="isbn", value=isbn13)


@pytest.mark.parametrize("raw", ["9780262035614", "0262035617", "0804429570", "ISBN:9780099560433", "9770262035613"])
def test_isbns_with_a_wrong_check_digit_or_prefix_are_rejected(raw):
    with pytest.raises(InvalidIdError):
        parse_isbn(raw)
    with pytest.raises(InvalidIdError):
        parse_paper_id(raw)


def test_isbn13_converts_to_isbn10_only_for_978():
    assert isbn13_to_isbn10("9780262035613") == "0262035618"
    assert isbn13_to_isbn10("978-0-8044-2957-3") == "080442957X"
    assert isbn13_to_isbn10("9791032305690") is None


@pytest.mark.parametrize(
    ("raw", "number"),
    [
        ("EP2400812A1", "EP2400812A1"),
        ("EP 1234567 A1", "EP1234567A1"),
        ("EP.2533477.B1", "EP2533477B1"),
        ("ep3491801b1", "EP3491801B1"),
        ("WO2024/123456", "WO2024123456"),
        ("WO 2019/016210 A1", "WO2019016210A1"),
        ("US11,234,567B2", "US11234567B2"),
        ("US10123456B2", "US10123456B2"),
        ("US2012057518A1", "US2012057518A1"),
        ("US 2012/0057518 A1", "US2012057518A1"),
        ("patent:US9648662B2", "US9648662B2"),
    ],
)
def test_patent_numbers_normalise_to_office_number_kind(raw, number):
    assert parse_patent_number(raw) == number
    assert parse_paper_id(raw) == PaperId(kind="patent", value=number)


@pytest.mark.parametrize(
    "raw", [S2_ID, "DE0f40b1f08821e22e859c6050916cec36677786", "9780262035613", "0262035618", "XX1234567A1", "EP12"]
)
def test_s2_ids_isbns_and_unknown_offices_are_not_patent_numbers(raw):
    assert parse_patent_number(raw) is None


def test_a_40_hex_id_starting_with_an_office_code_is_an_s2_id_not_a_patent():
    hex_id = "de12345678901234567890123456789012345678"
    assert parse_paper_id(hex_id) == PaperId(kind="s2", value=hex_id)
    assert parse_paper_id(hex_id.upper()).kind == "s2"


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "x" * 301, "hello world", "123456", "PMID:abc", "doi:not-a-doi", "CorpusId:", "ISBN:123", "url:ftp://x"],
)
def test_unparseable_input_raises_an_invalid_argument_error_listing_accepted_forms(raw):
    with pytest.raises(InvalidIdError) as caught:
        parse_paper_id(raw)
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, InvalidArgumentError)
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.envelope_body()["recovery"]["hint"].startswith("Accepted identifier forms")


def test_over_long_input_is_rejected_before_any_pattern_is_tried():
    with pytest.raises(InvalidIdError):
        parse_paper_id("10.1000/" + "a" * 300)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("10.1038/nature12373", True),
        ("doi:10.1038/nature12373", True),
        ("https://dx.doi.org/10.1038/nature12373", True),
        ("2104.12255", False),
        ("10.1038", False),
    ],
)
def test_doi_forms_and_only_they_parse_as_dois(raw, expected):
    try:
        kind = parse_paper_id(raw).kind
    except InvalidIdError:
        kind = None
    assert (kind == "doi") is expected


@pytest.mark.parametrize(
    ("raw", "kind", "value"),
    [
        ("INSPIRE:1842768", "inspire", "1842768"),
        ("inspire:01842768", "inspire", "1842768"),
        ("https://inspirehep.net/literature/1842768", "inspire", "1842768"),
        ("lib_0123456789abcdef0123", "library_item", "lib_0123456789abcdef0123"),
        (f"pdfs/{'ab' * 32}.pdf", "artifact", f"pdfs/{'ab' * 32}.pdf"),
        ("RFC 9000", "standard", "RFC 9000"),
        ("rfc9000", "standard", "rfc9000"),
        ("ISO/IEC 27001:2022", "standard", "ISO/IEC 27001:2022"),
        ("NIST SP 800-53 Rev. 5", "standard", "NIST SP 800-53 Rev. 5"),
        ("IEEE 802.11-2020", "standard", "IEEE 802.11-2020"),
        ("ETSI  EN 303 645", "standard", "ETSI EN 303 645"),
        ("FIPS 140-3", "standard", "FIPS 140-3"),
    ],
)
def test_what_our_tools_hand_out_besides_papers_parses_to_its_own_kind(raw, kind, value):
    assert parse_paper_id(raw) == PaperId(kind=kind, value=value)


@pytest.mark.parametrize("raw", ["EP1234567A1", "US10123456B2", "WO2024/123456", "10.1073/pnas.1414271111"])
def test_patents_and_dois_are_never_taken_for_standards(raw):
    assert parse_paper_id(raw).kind in ("patent", "doi")


def test_the_cache_key_of_every_kind_names_the_same_identifier_again():
    for raw in ("INSPIRE:1842768", S2_ID, "CorpusId:470667", "RFC 9000", "W2741809807", "arXiv:2501.10120v1"):
        pid = parse_paper_id(raw)
        assert PaperId.from_cache_key(pid.cache_key()) == pid.model_copy(update={"version": None})


def test_a_record_s_keys_are_every_normalised_id_it_carries_and_garbled_ones_give_none():
    keys = record_keys("DB3720C812A462EF955D5654B65CA9189D4B8372", {
        "DOI": "https://doi.org/10.1073/PNAS.1414271111", "PubMed": "25349416", "CorpusId": "470667",
        "OpenAlex": "W2109415576", "INSPIRE": "1842768", "ArXiv": "not an id", "DBLP": "ignored"})
    assert keys == {"s2:db3720c812a462ef955d5654b65ca9189d4b8372", "doi:10.1073/pnas.1414271111", "pmid:25349416",
                    "corpus:470667", "openalex:W2109415576", "inspire:1842768"}


def test_written_ids_include_the_inspire_record_in_a_form_every_tool_reads_back():
    written = written_ids({"DOI": "10.1016/j.nuclphysa.2021.122138", "INSPIRE": "1842768"})
    assert written == ["10.1016/j.nuclphysa.2021.122138", "INSPIRE:1842768"]
    assert [parse_paper_id(w).kind for w in written] == ["doi", "inspire"]
