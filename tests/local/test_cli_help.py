"""What the command line tells a new user (issue 41): whole first sentences in ``--help`` (or a cut at a word with an
ellipsis), ``--version``, the accepted values of every option with a fixed set, text answers without the empty
fields ``--json`` leaves out, the error envelope on stdout under ``--json``, a snapshot imported from a file or stdin,
and nothing on stderr for a cached answer."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from scholar.local.cli import main
from scholar.local.cli.output import EXIT_CODES, EXIT_OK, render
from tests.local.conftest import Machine

DOI = "10.1073/pnas.1414271111"  # recorded: semantic_scholar, crossref
UNKNOWN_DOI = "10.9999/nope.nothing"
TIMEOUT_S = 240


def run(machine: Machine, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(machine.command(*args), env=machine.child_env(), capture_output=True, text=True,
                          input=stdin, timeout=TIMEOUT_S, check=False)


def test_help_never_cuts_a_word_and_version_answers(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    with pytest.raises(SystemExit) as version:
        main(["--version"])

    assert version.value.code == 0 and re.fullmatch(r"scholar \S+\n", capsys.readouterr().out)
    summaries = re.findall(r"^    \S+\s+(.+(?:\n {24}.+)*)", listed, flags=re.M)
    assert summaries
    for summary in summaries:
        text = " ".join(summary.split())
        last = text.split()[-1]
        assert text.endswith("…") or last.isalpha() or last[-1] in ")]}\"'" or last[-1].isalnum(), text
    assert "Unpayw\n" not in listed and "comme\n" not in listed


@pytest.mark.parametrize(("command", "option", "values"), [
    (["library", "sync"], "TARGET", "zotero, zotero_local, bibtex, obsidian, notion"),
    (["library", "sync"], "--direction", "push, pull"),
    (["search"], "--sort", "relevance, citations, date"),
    (["search"], "--intent", "foundational, recent, survey, methods, datasets"),
])
def test_an_option_with_a_fixed_set_of_values_lists_them(capsys, command, option, values):
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    shown = " ".join(capsys.readouterr().out.split())

    assert f"one of: {values}" in shown[shown.index(option, shown.index("positional arguments")):]


def test_text_output_leaves_out_empty_fields_as_json_does():
    text = render({"title": "A", "venue": None, "year": 2020, "authors": [{"name": "B", "id": None}]}, as_json=False)

    assert "null" not in text and "venue" not in text and "year: 2020" in text


def test_with_json_a_failure_prints_the_error_envelope_on_stdout(machine):
    done = run(machine, "get-paper", UNKNOWN_DOI, "--json")

    assert done.returncode == EXIT_CODES["not_found"]
    assert json.loads(done.stdout)["error"]["code"] == "not_found"
    assert "error [not_found]" in done.stderr


def test_a_cached_get_paper_prints_nothing_on_stderr(machine):
    first = run(machine, "get-paper", DOI, "--json")
    again = run(machine, "get-paper", DOI)

    assert first.returncode == again.returncode == EXIT_OK, first.stderr + again.stderr
    assert again.stderr == "" and DOI in again.stdout


def test_library_import_reads_the_snapshot_from_a_file_or_stdin(machine, tmp_path):
    added = run(machine, "library", "add", DOI, "--json")
    assert added.returncode == EXIT_OK, added.stderr
    exported = json.loads(run(machine, "library", "export", "--format", "jsonl", "--json").stdout)
    snapshot = exported.get("content") or exported.get("text") or exported.get("jsonl")
    assert isinstance(snapshot, str) and snapshot.startswith("{"), exported
    path = tmp_path / "snapshot.jsonl"
    path.write_text(snapshot, encoding="utf-8")

    from_file = run(machine, "library", "import", "--jsonl", str(path), "--json")
    from_stdin = run(machine, "library", "import", "--jsonl", "-", "--json", stdin=snapshot)

    for done in (from_file, from_stdin):
        assert done.returncode == EXIT_OK, done.stderr
        assert json.loads(done.stdout)["skipped"] >= 1


def test_a_zotero_sync_without_a_key_names_the_settings_and_the_keyring_command(machine):
    env = {**machine.child_env(), "SCHOLAR_ZOTERO_API_KEY": "", "SCHOLAR_ZOTERO_LIBRARY": "",
           "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    done = subprocess.run(machine.command("library", "sync", "zotero", "--direction", "pull"), env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False)

    assert done.returncode == EXIT_CODES["forbidden"], done.stderr
    for named in ("SCHOLAR_ZOTERO_API_KEY", "SCHOLAR_ZOTERO_LIBRARY", "keyring set scholar-mcp/zotero"):
        assert named in done.stderr
    assert "connect page" not in done.stderr
