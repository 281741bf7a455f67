"""docs/tools.md is what the catalogue generates (`python -m scholar.families.docs_tools` rewrites it)."""

from __future__ import annotations

from scholar.families import all_tools, docs_tools


def test_docs_tools_md_is_up_to_date_with_the_catalogue():
    # Stale? Run `python -m scholar.families.docs_tools` and commit docs/tools.md.
    assert docs_tools.main(["--check"]) == 0


def test_the_check_fails_on_a_stale_file(monkeypatch, tmp_path):
    stale = tmp_path / "tools.md"
    stale.write_text(docs_tools.render().replace("get_paper", "get_papyrus"))
    monkeypatch.setattr(docs_tools, "DOC", stale)

    assert docs_tools.main(["--check"]) == 1


def test_every_tool_has_a_section_with_its_parameters():
    text = docs_tools.render()

    for name, spec in all_tools().items():
        assert f"\n### {name}\n" in text
        for parameter in spec.input_schema().get("properties", {}):
            assert f"| `{parameter}` |" in text
