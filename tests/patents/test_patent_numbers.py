"""The patent-number normaliser: real-world forms of 10 offices, kind codes, ambiguity and refusals."""

from __future__ import annotations

import pytest

from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.core.patent_numbers import FIELD, parse_patent_number
from scholar.sources.epo_ops_numbers import standardise
from tests.patents.helpers import OPS, XML, ops_fixture, run

# (as pasted, compact form every tool returns, docdb form OPS is asked for)
TABLE = [
    # EP: spaces, dots, hyphens, lower case, short numbers padded to 7 digits
    ("EP1234567A1", "EP1234567A1", "EP.1234567.A1"),
    ("EP 1 234 567 A1", "EP1234567A1", "EP.1234567.A1"),
    ("EP.1234567.A1", "EP1234567A1", "EP.1234567.A1"),
    ("ep2400812a1", "EP2400812A1", "EP.2400812.A1"),
    ("EP-2400812-B1", "EP2400812B1", "EP.2400812.B1"),
    ("EP 2533477 B1", "EP2533477B1", "EP.2533477.B1"),
    ("EP3491801B1", "EP3491801B1", "EP.3491801.B1"),
    ("EP 0123456 A2", "EP0123456A2", "EP.0123456.A2"),
    ("EP123456A1", "EP0123456A1", "EP.0123456.A1"),
    ("EP2400812", "EP2400812", "EP.2400812"),
    # WO: the slash form, year + 6 digits, two-digit years of the old series
    ("WO2024/123456", "WO2024123456", "WO.2024123456"),
    ("WO 2024123456 A1", "WO2024123456A1", "WO.2024123456.A1"),
    ("WO 2019/016210 A1", "WO2019016210A1", "WO.2019016210.A1"),
    ("WO2019016210A1", "WO2019016210A1", "WO.2019016210.A1"),
    ("WO 02/054790 A2", "WO02054790A2", "WO.02054790.A2"),
    ("WO 03/67954", "WO03067954", "WO.03067954"),
    # US: grants with thousands commas, pre-grant publications (docdb drops the serial's leading zero)
    ("US11,234,567B2", "US11234567B2", "US.11234567.B2"),
    ("US 9,648,662 B2", "US9648662B2", "US.9648662.B2"),
    ("US 2021/0123456 A1", "US2021123456A1", "US.2021123456.A1"),
    ("US20120057518A1", "US2012057518A1", "US.2012057518.A1"),
    ("US2012057518A1", "US2012057518A1", "US.2012057518.A1"),
    ("US 2003/0060222 A1", "US2003060222A1", "US.2003060222.A1"),
    ("US10123456B2", "US10123456B2", "US.10123456.B2"),
    ("US RE45,678 E", "USRE45678E", "US.RE45678.E"),
    # JP: year-serial with a hyphen, granted numbers
    ("JP 2020-123456 A", "JP2020123456A", "JP.2020123456.A"),
    ("JP2020123456A", "JP2020123456A", "JP.2020123456.A"),
    ("JP 6123456 B2", "JP6123456B2", "JP.6123456.B2"),
    ("JP 2005-12345 A", "JP2005012345A", "JP.2005012345.A"),
    # CN: invention and utility-model publications
    ("CN112345678A", "CN112345678A", "CN.112345678.A"),
    ("CN 1234567 A", "CN1234567A", "CN.1234567.A"),
    ("CN 209876543 U", "CN209876543U", "CN.209876543.U"),
    # KR: the 10-YYYY-NNNNNNN publication form and 10-NNNNNNN grants
    ("KR 10-2020-0012345 A", "KR20200012345A", "KR.20200012345.A"),
    ("KR20200012345A", "KR20200012345A", "KR.20200012345.A"),
    ("KR 10-1234567 B1", "KR101234567B1", "KR.101234567.B1"),
    # DE: the grouped 10 2019 123 456 form and older numbers
    ("DE 10 2019 123 456 A1", "DE102019123456A1", "DE.102019123456.A1"),
    ("DE19812345A1", "DE19812345A1", "DE.19812345.A1"),
    # GB, FR, CA, AU and offices without a rule of their own
    ("GB 2345678 A", "GB2345678A", "GB.2345678.A"),
    ("FR 3012345 A1", "FR3012345A1", "FR.3012345.A1"),
    ("CA 2744162 A1", "CA2744162A1", "CA.2744162.A1"),
    ("AU 2024270787 A1", "AU2024270787A1", "AU.2024270787.A1"),
    ("DK 3740998 T3", "DK3740998T3", "DK.3740998.T3"),
    ("HRP20251003T1", "HRP20251003T1", "HR.P20251003.T1"),
    ("patent:EP2400812A1", "EP2400812A1", "EP.2400812.A1"),
]


def test_the_table_covers_at_least_forty_inputs_of_eight_offices():
    assert len(TABLE) >= 40
    assert len({compact[:2] for _, compact, _ in TABLE}) >= 8


@pytest.mark.parametrize(("raw", "compact", "docdb"), TABLE)
def test_every_pasted_form_normalises_to_its_docdb_number(raw, compact, docdb):
    number = parse_patent_number(raw)
    assert (number.compact, number.docdb, number.ambiguous) == (compact, docdb, False)


def test_a_number_without_kind_is_asked_for_in_epodoc_and_with_kind_in_docdb():
    assert parse_patent_number("EP 2400812").ops_reference() == ("epodoc", "EP2400812")
    assert parse_patent_number("EP 2400812 A1").ops_reference() == ("docdb", "EP.2400812.A1")


@pytest.mark.parametrize("raw", ["JP H10-123456 A", "EP 12345678 A1", "US 123 A"])
def test_forms_no_office_rule_explains_are_ambiguous_or_refused(raw):
    try:
        number = parse_patent_number(raw)
    except InvalidArgumentError as err:
        assert err.field == FIELD
    else:
        assert number.ambiguous and number.original


@pytest.mark.parametrize("raw", ["XX1234567A1", "1234567", "EP", "10.1038/nature12373", "EP ABC", "ISBN 978"])
def test_unknown_formats_are_invalid_arguments_naming_patent_number_with_examples(raw):
    with pytest.raises(InvalidArgumentError) as caught:
        parse_patent_number(raw)
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.field == FIELD
    assert "EP1234567A1" in (caught.value.hint or "")


def test_an_ambiguous_form_asks_the_number_service_once_and_caches_the_answer(aws, ops):
    # The recorded standardisation answer (docdb → original) has the same ops:output shape as original → docdb.
    route = ops.get(url__regex=rf"{OPS}/number-service/publication/original/.+/docdb").respond(
        200, content=ops_fixture("number_docdb-to-original_EP2400812A1.xml"), headers=XML)
    number = parse_patent_number("JP H10-123456 A")
    assert number.ambiguous

    first = run(standardise, number)
    again = run(standardise, number)

    assert route.call_count == 1
    assert first == again
    assert (first.docdb, first.ambiguous) == ("EP.2400812.A1", False)
    assert "JP.%28H10-123456%29.A" in str(route.calls.last.request.url)


def test_a_number_the_number_service_does_not_know_is_an_invalid_argument(ops):
    ops.get(url__regex=rf"{OPS}/number-service/.+").respond(
        404, content=ops_fixture("error_404_fault_entity_not_found.xml"), headers=XML)
    with pytest.raises(InvalidArgumentError) as caught:
        run(standardise, parse_patent_number("JP H10-123456 A"))
    assert caught.value.field == FIELD
