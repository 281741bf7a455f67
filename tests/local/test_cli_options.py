"""The command line's shape, read from the catalogue: subcommands, positional parameters, exit statuses, text."""

from __future__ import annotations

import typing

import pytest

from scholar.core.errors import ErrorCode, NotFoundError, RateLimitedError
from scholar.families import all_tools
from scholar.local.cli.main import build_parser, main
from scholar.local.cli.options import arguments_of, positional_names
from scholar.local.cli.output import EXIT_CODES, EXIT_OK, exit_code, render


def schema(tool: str) -> dict:
    return all_tools()[tool].input_schema()


@pytest.mark.parametrize(("tool", "positional"), [
    ("get_paper", ["identifier"]),
    ("search", ["query"]),  # no required parameter, but a query
    ("find_bridge_papers", ["source_id", "target_id"]),
    ("arxiv_get_papers", ["paper_ids"]),
    ("read_paper", ["identifier"]),
    ("library_export", []),
])
def test_required_parameters_are_positional_and_the_rest_are_options(tool, positional):
    assert positional_names(schema(tool)) == positional


def test_every_tool_is_a_subcommand_and_library_tools_are_grouped():
    parser = build_parser()

    args = parser.parse_args(["library", "export", "--format", "ris", "--json"])
    paper = parser.parse_args(["read-paper", "10.1/x", "--pages", "1-3", "--no-outline"])
    search = parser.parse_args(["search", "graph neural networks", "--limit", "5"])

    assert args.tool.name == "library_export" and arguments_of(args, args.tool) == {"format": "ris"}
    assert args.as_json is True
    assert arguments_of(paper, paper.tool) == {"identifier": "10.1/x", "pages": "1-3", "outline": False}
    assert arguments_of(search, search.tool) == {"query": "graph neural networks", "limit": 5}


def test_an_option_outside_its_enum_is_refused_before_anything_runs(capsys):
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["library", "export", "--format", "docx"])

    assert exit_.value.code == EXIT_CODES["invalid_argument"]
    assert "--format" in capsys.readouterr().err


def test_help_lists_the_tools_and_the_commands_while_a_command_of_this_machine_parses_without_the_tools(capsys):
    def printed(*argv: str) -> tuple[int, str]:
        with pytest.raises(SystemExit) as exit_:
            main(list(argv))
        out = capsys.readouterr()
        return exit_.value.code, out.out + out.err

    everything = printed("--help")[1]
    mcp_help = printed("-v", "mcp", "--help")[1]
    status, refused = printed("mcp", "--bogus")

    assert {"get-paper", "read-paper", "library", "mcp", "serve", "keys"} <= set(everything.split())
    assert "--toolsets" in mcp_help and "get-paper" not in mcp_help
    assert status == EXIT_CODES["invalid_argument"] and "--bogus" in refused


def test_every_error_code_has_its_own_exit_status():
    codes = set(typing.get_args(ErrorCode))

    assert set(EXIT_CODES) == codes
    assert len(set(EXIT_CODES.values())) == len(codes)
    assert EXIT_OK not in EXIT_CODES.values()
    assert exit_code(NotFoundError("x")) == EXIT_CODES["not_found"]
    assert exit_code(RateLimitedError("x")) == EXIT_CODES["rate_limited"]


def test_text_output_names_each_record_in_one_line_and_json_is_the_dict():
    result = {"total": 2, "data": [{"title": "Attention Is All You Need", "year": 2017, "paperId": "abc"},
                                   {"title": "BERT", "paperId": "def"}]}

    text = render(result, as_json=False)

    assert "  1. Attention Is All You Need (2017)  [abc]" in text.splitlines()
    assert "  2. BERT  [def]" in text.splitlines()
    assert render(result, as_json=True).startswith("{\n")


def test_the_command_line_and_the_api_load_neither_the_mcp_sdk_nor_the_aws_stand_in():
    import subprocess
    import sys

    probe = ("import sys; from scholar.local.cli.main import build_parser; build_parser(); import scholar.local.api; "
             "print(sorted(m for m in ('mcp', 'moto', 'boto3', 'uvicorn') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)

    assert done.stdout.strip() == "[]"  # `scholar get-paper` pays for pydantic and the catalogue, not ~0.7 s of SDK
