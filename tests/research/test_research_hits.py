"""Compact results: the size budget, and sort orders that replace the ranking."""

from __future__ import annotations

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.families.research.search.hits import fit, order
from scholar.families.research.search.spec import SearchHit, Signals


def _hit(i: int, *, year: int | None = None, cites: int | None = None) -> SearchHit:
    return SearchHit(id=f"W{i}", ids=[f"W{i}"], title=f"Paper {i}", year=year, citation_count=cites,
                     found_by=["openalex"], provenance={}, signals=Signals(score=1.0 - i / 100, relevance=0.5))


def test_a_page_is_cut_to_the_size_budget_and_says_so():
    big = [{"id": f"W{i}", "abstract": "x" * 10_000} for i in range(20)]
    page, truncated = fit(big)
    assert truncated and 0 < len(page) < 20
    assert sum(len(str(h)) for h in page) < MAX_RESULT_CHARS


def test_a_small_page_is_kept_whole():
    page, truncated = fit([{"id": "W1"}, {"id": "W2"}])
    assert (len(page), truncated) == (2, False)


def test_sort_by_date_puts_newer_first_and_unknown_years_last():
    hits = [_hit(0, year=2001), _hit(1), _hit(2, year=2024)]
    assert [h.id for h in order(hits, "date")] == ["W2", "W0", "W1"]


def test_sort_by_citations_puts_unknown_counts_last_and_keeps_the_ranking_on_ties():
    hits = [_hit(0, cites=5), _hit(1), _hit(2, cites=50), _hit(3, cites=5)]
    assert [h.id for h in order(hits, "citations")] == ["W2", "W0", "W3", "W1"]
