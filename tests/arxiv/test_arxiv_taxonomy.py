"""The static taxonomy and arxiv_list_categories."""

from __future__ import annotations

from scholar.families.arxiv import taxonomy
from scholar.families.arxiv.spec import ListCategoriesInput
from tests.arxiv.helpers import call


def test_every_group_of_the_tool_schema_has_categories():
    assert {c.group for c in taxonomy.CATEGORIES} == set(taxonomy.GROUPS)


def test_the_taxonomy_holds_every_active_subject_class_once():
    codes = [c.code for c in taxonomy.CATEGORIES]
    assert len(codes) == len(set(codes)) == 155
    by_code = {c.code: c for c in taxonomy.CATEGORIES}
    assert by_code["cs.AI"].name == "Artificial Intelligence"
    assert by_code["hep-th"].group == "physics"


def test_codes_are_recognised_case_insensitively_in_canonical_spelling():
    assert taxonomy.canonical("CS.cl") == "cs.CL"
    assert taxonomy.canonical("cond-mat.MES-HALL") == "cond-mat.mes-hall"
    assert taxonomy.canonical("Astro-Ph") == "astro-ph"
    assert taxonomy.canonical("alg-geom") == "alg-geom"
    assert taxonomy.canonical("cs.XY") is None


def test_listing_without_a_group_returns_the_whole_taxonomy():
    result = call("arxiv_list_categories", ListCategoriesInput())
    assert result.totalCount == len(result.categories) == len(taxonomy.CATEGORIES)
    assert result.notice is None


def test_listing_one_group_returns_only_its_categories():
    result = call("arxiv_list_categories", ListCategoriesInput(group="physics"))
    assert {c.group for c in result.categories} == {"physics"}
    assert {"quant-ph", "astro-ph.GA", "cond-mat.str-el"} <= {c.code for c in result.categories}
