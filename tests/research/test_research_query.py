"""Query preparation: the question as written for semantic sources, compact keywords for keyword sources."""

from __future__ import annotations

from dataclasses import replace

from scholar.families.research.search.query import keyword_terms, prepare
from scholar.sources.paper_search import arxiv_query
from scholar.sources.registry import SOURCES


def test_a_semantic_source_receives_the_question_as_written():
    question = "How do transformers handle long documents?"
    assert prepare(question, SOURCES["s2"]).text == question
    assert prepare(question, SOURCES["s2"]).terms == ()


def test_stop_words_and_research_filler_are_removed_for_keyword_sources():
    terms = keyword_terms("What are the recent papers about protein folding with deep learning?", None)
    assert terms == ("protein", "folding", "deep", "learning")


def test_a_keyword_source_keeps_at_most_its_term_limit():
    source = replace(SOURCES["openalex"], term_limit=3)
    assert prepare("sparse attention long context language model efficiency", source).terms == (
        "sparse", "attention", "long")


def test_quoted_phrases_and_field_prefixes_are_kept_whole_and_first():
    terms = keyword_terms('effects of ti:"dark matter" on "galaxy rotation curves" in au:Rubin spiral galaxies', 4)
    assert terms == ('ti:"dark matter"', '"galaxy rotation curves"', "au:Rubin", "effects")


def test_repeated_words_are_sent_once():
    assert keyword_terms("graph graph Graph networks", None) == ("graph", "networks")


def test_arxiv_receives_every_term_required_and_prefixes_as_written():
    assert arxiv_query(("ti:transformer", "protein", '"language model"')) == (
        'ti:transformer AND all:protein AND all:"language model"')
