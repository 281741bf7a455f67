"""Result-size hints (issue #31 item 12): a tool whose answer can pass 20,000 characters says how long it can be,
and the number it says is the cap its code keeps.

``get_book_excerpt`` (Google Books' texts, unbounded upstream) and ``get_standard`` (the whole text with
``max_chars`` null) answered long with no ``_meta["anthropic/maxResultSizeChars"]``.
"""

from __future__ import annotations

import json

import pytest

from scholar.families import all_tools, result_size_hint
from scholar.families.books.models import EXCERPT_RESULT_CHARS, EXCERPT_SNIPPET_CHARS, EXCERPT_TEXT_CHARS
from scholar.families.standards import fulltext
from scholar.families.standards.spec import MAX_TEXT_CHARS, RESULT_CHARS, WHOLE_TEXT_CHARS
from scholar.gateway.mcp.tools import MAX_RESULT_META, wire_tool
from tests.books.helpers import call, json_response, recorded
from tests.books.test_books_excerpt import READY_PLAYER_ONE

LONG = 20_000  # the size past which an answer needs a hint
CLIENT_CEILING = 500_000  # Claude Code keeps a result whole up to the hint, at most this many characters


@pytest.mark.parametrize(("tool", "cap"), [("get_standard", RESULT_CHARS), ("get_book_excerpt", EXCERPT_RESULT_CHARS)])
def test_the_tools_the_trial_named_advertise_their_cap_in_the_listing(tool, cap):
    listed = wire_tool(tool)
    assert result_size_hint(all_tools()[tool]) == cap
    assert listed.meta is not None and listed.meta[MAX_RESULT_META] == cap
    assert LONG < cap <= CLIENT_CEILING


def test_the_whole_text_of_a_standard_stops_at_its_cap_and_says_where_to_go_on():
    text = "x" * (WHOLE_TEXT_CHARS + 5)
    whole = fulltext.page(text, 0, None)
    assert whole["text_returned_chars"] == WHOLE_TEXT_CHARS and whole["next_offset"] == WHOLE_TEXT_CHARS
    rest = fulltext.page(text, WHOLE_TEXT_CHARS, None)
    assert rest["full_text"] == "xxxxx" and rest["next_offset"] is None
    assert len(fulltext.page(text, 0, MAX_TEXT_CHARS)["full_text"]) == MAX_TEXT_CHARS


@pytest.fixture
def no_cache(env):
    """No cache table: a test before this one in the same process may leave one configured (tests/books do the
    same in their conftest)."""
    env.set(SCHOLAR_CACHE_TABLE=None)


@pytest.mark.usefixtures("no_cache")
def test_a_book_excerpt_with_a_million_character_description_stays_within_its_advertised_size(upstream):
    # Synthetic: the recorded Ready Player One volume with its description and snippet made a million characters.
    volumes = json.loads(recorded(READY_PLAYER_ONE))
    volumes["items"][0]["volumeInfo"]["description"] = "word " * 200_000
    volumes["items"][0]["searchInfo"] = {"textSnippet": "snip " * 200_000}
    upstream.get("/google_books/books/v1/volumes").mock(return_value=json_response(volumes))
    excerpt = call("get_book_excerpt", isbn="978-0-09-956043-2")
    assert excerpt.truncated is True
    assert len(excerpt.description) == EXCERPT_TEXT_CHARS and len(excerpt.snippet) <= EXCERPT_SNIPPET_CHARS
    assert len(excerpt.model_dump_json()) <= EXCERPT_RESULT_CHARS


@pytest.mark.usefixtures("no_cache")
def test_a_book_excerpt_of_ordinary_length_is_whole(upstream):
    upstream.get("/google_books/books/v1/volumes").mock(return_value=json_response(recorded(READY_PLAYER_ONE)))
    assert call("get_book_excerpt", isbn="978-0-09-956043-2").truncated is False
