"""The refusal of an identifier a tool cannot take (scholar.core.id_forms): the field, the form, the forms it takes
and the
tool that takes this one."""

import pytest

from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.core.id_forms import TAKEN_BY, WRONG_FORM, refuse_other_forms, wrong_form
from scholar.core.ids import IdKind


def test_every_kind_has_a_tool_that_takes_it_and_a_name():
    assert set(TAKEN_BY) == set(IdKind.__args__)


def test_a_refusal_names_the_field_the_form_the_forms_taken_and_the_tool_to_use():
    err = wrong_form("ISBN:9780262035613", "isbn", tool="get_paper", field="identifier")
    assert err.code == INVALID_ARGUMENT and err.reason == WRONG_FORM
    assert err.details == {"field": "identifier", "got": "isbn", "takes": err.details["takes"], "use": "get_book"}
    assert "'ISBN:9780262035613' is an ISBN" in err.message and "use get_book" in err.message
    assert "get_paper takes a paper identifier" in err.message


@pytest.mark.parametrize(("raw", "use"), [("10.1073/pnas.1414271111", "get_paper"), ("RFC 9000", "get_standard"),
                                          ("EP1234567A1", "get_patent"), ("lib_0123456789abcdef0123", "library_get")])
def test_a_tool_refuses_a_recognised_form_it_does_not_take(raw, use):
    with pytest.raises(InvalidArgumentError) as caught:
        refuse_other_forms(raw, tool="get_book", field="identifier", accepts={"isbn"}, takes="an ISBN")
    assert caught.value.details["use"] == use


def test_what_scholar_ids_cannot_classify_is_left_to_the_tool_and_a_given_tool_name_wins():
    refuse_other_forms("OL7353617M", tool="get_book", field="identifier", accepts={"isbn"}, takes="an ISBN")
    with pytest.raises(InvalidArgumentError) as caught:
        refuse_other_forms("10.1073/pnas.1414271111", tool="convert_pdf_to_markdown", field="file_path",
                           accepts={"artifact"}, takes="a stored PDF", use={"doi": "fetch_and_convert"})
    assert caught.value.details["use"] == "fetch_and_convert"
