"""The PDF pipeline and its artifacts, a library the pdf and research families share.

Locating a paper's PDF (resolve), fetching it under the SSRF rules (fetch, download, ssrf), the
content-addressed artifacts in S3 (artifacts), the jobs that queue the fetch → download → convert
state machine (jobs; the steps themselves are scholar.services.pipeline), the tools' answers (pdf_results,
read_result, keep_result) built from what it
stored (answer_builder), and download_paper's keeping of the best version in the caller's library
(keep_step, verify; the library records the kept PDF). Not a family: no
tools and no function of its own; families never import each other, so what two of them need lives here.
"""
