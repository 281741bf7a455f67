"""Building the effectiveQuery: syntax, category expansion, date windows, and the replay fixed point."""

from __future__ import annotations

import pytest

from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.families.arxiv import reasons, taxonomy
from scholar.families.arxiv.query import build_query

ASTRO = "(" + " OR ".join(f"cat:{c}" for c in taxonomy.archive_codes("astro-ph")) + ")"


def _error(query: str, category: str | None = None, start: str | None = None, end: str | None = None):
    with pytest.raises(InvalidArgumentError) as caught:
        build_query(query, category, start, end)
    assert caught.value.code == INVALID_ARGUMENT
    return caught.value


def test_field_prefixed_terms_and_operators_pass_through_unchanged():
    assert build_query("au:bengio AND ti:attention", None, None, None) == "au:bengio AND ti:attention"
    assert build_query("ti:a OR (au:b ANDNOT abs:c)", None, None, None) == "ti:a OR (au:b ANDNOT abs:c)"


def test_bare_words_search_all_fields_and_side_by_side_terms_are_anded():
    assert build_query("deep  learning", None, None, None) == "all:deep AND all:learning"
    assert build_query('ti:x (au:y OR au:z)', None, None, None) == "ti:x AND (au:y OR au:z)"


def test_phrases_keep_their_quotes_with_whitespace_normalised():
    assert build_query('ti:"graph   neural network"', None, None, None) == 'ti:"graph neural network"'
    assert build_query('"large language"', None, None, None) == 'all:"large language"'


def test_and_not_is_spelled_as_arxivs_andnot():
    assert build_query("a AND NOT b", None, None, None) == "all:a ANDNOT all:b"


def test_a_leaf_category_filter_is_folded_in_exactly():
    assert build_query("all:transformer", "cs.cl", None, None) == "all:transformer AND cat:cs.CL"


def test_an_archive_category_covers_its_subject_classes_and_legacy_papers():
    effective = build_query("ti:exoplanet", "astro-ph", None, None)
    assert effective == f"ti:exoplanet AND {ASTRO}"
    assert "cat:astro-ph.GA" in effective and "cat:astro-ph)" in effective


def test_absorbed_archives_are_part_of_the_archive_expansion():
    assert "cat:alg-geom" in build_query("x", "math", None, None)
    assert "cat:chao-dyn" in build_query("x", "nlin", None, None)


def test_cat_inside_the_query_expands_like_the_category_filter():
    assert build_query("cat:astro-ph AND ti:dust", None, None, None) == f"{ASTRO} AND ti:dust"


def test_an_unsubdivided_archive_is_a_plain_leaf():
    assert build_query("x", "hep-th", None, None) == "all:x AND cat:hep-th"


def test_a_multi_term_query_is_parenthesised_before_filters_are_added():
    effective = build_query("all:electron OR all:proton", "quant-ph", None, None)
    assert effective == "(all:electron OR all:proton) AND cat:quant-ph"


def test_the_date_window_is_inclusive_and_ends_at_the_next_midnight():
    effective = build_query("ti:x", None, "2024-01-01", "2024-01-15")
    assert effective == "ti:x AND submittedDate:[202401010000 TO 202401160000]"


def test_an_open_ended_window_keeps_a_bound_on_one_side_only():
    assert build_query("ti:x", None, "2024-12-31", None).endswith("[202412310000 TO 210001010000]")
    assert build_query("ti:x", None, None, "2024-12-31").endswith("[199101010000 TO 202501010000]")
    assert build_query("ti:x", None, "", "") == "ti:x"


@pytest.mark.parametrize(
    ("query", "category", "start", "end"),
    [
        ("au:bengio AND ti:attention", None, None, None),
        ("all:electron OR all:proton", "astro-ph", "2024-01-01", "2024-01-15"),
        ("cat:math OR cat:cs", "cond-mat", None, "2020-02-29"),
        ('(ti:"a b" OR abs:c) ANDNOT cat:physics', "physics", "2019-01-01", None),
        ("cat:astro-ph", None, None, None),
    ],
)
def test_replaying_the_effective_query_reproduces_it(query, category, start, end):
    effective = build_query(query, category, start, end)
    assert build_query(effective, None, None, None) == effective


@pytest.mark.parametrize("query", ["(ti:a", "ti:a)", "AND ti:a", "ti:a OR", "()", "ti:", "NOT ti:a", 'ti:"open', "   "])
def test_malformed_queries_are_refused_with_unsupported_query_syntax(query):
    err = _error(query)
    assert err.reason == reasons.UNSUPPORTED_QUERY_SYNTAX
    assert err.field == "query"


def test_an_unknown_category_is_refused_with_near_matches():
    err = _error("x", category="cs.XY")
    assert err.reason == reasons.UNKNOWN_CATEGORY
    assert err.field == "category"
    assert "cs.SY" in err.message


def test_an_unknown_cat_inside_the_query_is_refused_too():
    assert _error("cat:astro-xx").reason == reasons.UNKNOWN_CATEGORY


def test_impossible_dates_and_reversed_windows_are_invalid_date_ranges():
    assert _error("x", start="2023-02-29").reason == reasons.INVALID_DATE_RANGE
    assert _error("x", end="2024-13-01").field == "submitted_to"
    assert _error("x", start="2024-02-02", end="2024-02-01").reason == reasons.INVALID_DATE_RANGE


def test_a_leap_day_is_a_real_date():
    assert "202402290000" in build_query("x", None, "2024-02-29", None)
