"""Prompt arguments are validated like tool arguments (issue #31 item 5): -32602 naming the argument, in both eras.

The trial: ``prompts/get literature_review`` with ``year_start: "²"`` answered JSON-RPC code 0 with Python's
``int()`` message (2025-11-25) or -32603 (2026-07-28): ``"²".isdigit()`` is true and ``int("²")`` fails. The same
``isdigit()``-then-``int()`` pair sat under headers and upstream records; ``scholar.core.numerals.ascii_int``
replaces them all.
"""

from __future__ import annotations

import anyio
import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from scholar.core.numerals import ascii_int
from scholar.gateway.mcp.server import build_server

NOT_ASCII_NUMBERS = ["²", "2⁰2⁴", "①", "١٢", "２０２０", "𝟚𝟘𝟚𝟘"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("year", NOT_ASCII_NUMBERS)
def test_a_prompt_integer_that_is_not_ascii_digits_is_minus_32602_naming_it(mode, year):
    async def main() -> MCPError:
        async with Client(build_server(), mode=mode) as client:
            with pytest.raises(MCPError) as caught:
                await client.get_prompt("literature_review", {"question": "q", "year_start": year})
            return caught.value

    refused = anyio.run(main)
    assert refused.code == types.INVALID_PARAMS
    assert refused.data == {"argument": "year_start"}


def test_the_same_prompt_with_ascii_digits_renders():
    async def main() -> types.GetPromptResult:
        async with Client(build_server(), mode="legacy") as client:
            return await client.get_prompt("literature_review", {"question": "q", "year_start": "2020"})

    assert '"year_start": 2020' in anyio.run(main).messages[0].content.text


@pytest.mark.parametrize("text", [*NOT_ASCII_NUMBERS, "", "-1", "+1", " 1", "1.0", "0x10"])
def test_only_ascii_digits_are_a_number(text):
    assert ascii_int(text) is None


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("429", 429), ("007", 7), ("99999999999999999999", 10**20 - 1)])
def test_ascii_digits_are_read_as_their_value(text, value):
    assert ascii_int(text) == value
