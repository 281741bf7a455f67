"""Where each body's full-text document is fetched from, and the W3C page → Markdown converter (pure units)."""

from __future__ import annotations

import pytest

from scholar.core.errors import UPSTREAM_ERROR, ScholarError
from scholar.families.standards.documents import Document, document_for
from scholar.families.standards.records import StandardRecord
from scholar.families.standards.texts import normalised_id
from scholar.families.standards.w3c_html import html_to_markdown
from scholar.sources.registry import SOURCES


def record(body: str, **fields) -> StandardRecord:
    return StandardRecord(id=fields.pop("id", "X 1"), identifier="X 1", body=body, source="test", **fields)


@pytest.mark.parametrize(
    ("doi", "published", "expected"),
    [
        ("10.6028/NIST.SP.800-53r5", "2020-12-10", "/nistpubs/SpecialPublications/NIST.SP.800-53r5.pdf"),
        ("10.6028/NIST.SP.800-53Ar5-draft", "2021-08-03", "/nistpubs/SpecialPublications/NIST.SP.800-53Ar5-draft.pdf"),
        ("10.6028/NIST.FIPS.140-3", "2019-03-22", "/nistpubs/FIPS/NIST.FIPS.140-3.pdf"),
        ("10.6028/NIST.CSWP.29", "2024-02-26", "/nistpubs/CSWP/NIST.CSWP.29.pdf"),
        ("10.6028/NIST.IR.8286", "2020-10-13", "/nistpubs/ir/2020/NIST.IR.8286.pdf"),
    ],
)
def test_a_nist_pdf_is_fetched_from_nvlpubs_by_its_doi(doi, published, expected):
    assert document_for(record("NIST", doi=doi, published=published)) == Document("nvlpubs", expected, "pdf")


@pytest.mark.parametrize("doi", [None, "10.6028/NBS.FIPS.102", "10.1000/other"])
def test_a_nist_record_without_a_modern_nist_doi_offers_no_document(doi):
    assert document_for(record("NIST", doi=doi, full_text_url=f"https://doi.org/{doi}")) is None


def test_etsi_and_w3c_documents_come_from_their_registry_hosts_whatever_the_scheme():
    etsi = record("ETSI", full_text_url="http://www.etsi.org/deliver/etsi_gs/ZSM/001_099/012/01.01.01_60/gs.pdf")
    assert document_for(etsi) == Document("etsi", "/deliver/etsi_gs/ZSM/001_099/012/01.01.01_60/gs.pdf", "pdf")
    w3c = record("W3C", full_text_url="https://www.w3.org/TR/2021/SPSD-2dcontext-20210128/")
    assert document_for(w3c) == Document("w3c_www", "/TR/2021/SPSD-2dcontext-20210128/", "html")
    assert {d.source for d in (document_for(etsi), document_for(w3c))} <= set(SOURCES)
    assert "nvlpubs" in SOURCES


@pytest.mark.parametrize(
    ("body", "url"),
    [
        ("W3C", "https://w3c.github.io/webrtc-pc/"),  # an editor's draft elsewhere: not one of our sources
        ("ETSI", "https://www.etsi.org/deliver/etsi_en/300300_300399/300330/02.01.01_60/"),  # not a PDF
        ("ISO", "https://www.iso.org/standard/62085.html"),
        ("IETF", "https://www.rfc-editor.org/rfc/rfc9000.txt"),  # RFCs have their own text path
    ],
)
def test_other_documents_are_not_on_offer(body, url):
    assert document_for(record(body, full_text_url=url)) is None


def test_w3c_text_keys_carry_the_edition_date_and_others_only_the_id():
    assert normalised_id(record("W3C", id="webrtc", version="2025-03-13")) == "webrtc-2025-03-13"
    assert normalised_id(record("ETSI", id="ETSI EN 303 645 V2.1.1 (2020-06)")) == "etsi-en-303-645-v2-1-1-2020-06"


def test_the_converter_keeps_line_breaks_definitions_quotes_and_code_languages():
    page = b"""<html><body><section id="s"><h2 id="s-h">2. Terms</h2>
    <p>first line<br>second
    line</p>
    <dl><dt>user agent</dt><dd>Software that <a href="#x">retrieves</a> content.</dd></dl>
    <blockquote><p>Quoted text.</p></blockquote>
    <pre class="example"><code class="language-js">const pc = new RTCPeerConnection();</code></pre>
    </section></body></html>"""
    assert html_to_markdown(page) == (
        "## 2. Terms\n\nfirst line\nsecond line\n\n**user agent**\n\nSoftware that retrieves content.\n\n"
        "> Quoted text.\n\n```js\nconst pc = new RTCPeerConnection();\n```\n"
    )


@pytest.mark.parametrize("page", [b"<html><body><nav id='toc'><p>only a toc</p></nav></body></html>", b"   "])
def test_a_page_without_text_is_an_upstream_error(page):
    with pytest.raises(ScholarError) as err:
        html_to_markdown(page)
    assert err.value.code == UPSTREAM_ERROR


def test_the_pdf_converter_name_in_text_keys_is_the_shared_converters_name():
    from scholar.families.standards.documents import PDF_CONVERTER
    from scholar.services.pdftext.convert import CONVERTER_NAME

    assert PDF_CONVERTER == CONVERTER_NAME
