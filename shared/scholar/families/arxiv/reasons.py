"""The reason codes of the arXiv tools' errors (seed 004), carried as ``ScholarError.reason``.

``scholar.sources.arxiv`` raises ``rate_limited`` and ``invalid_request`` itself (it cannot import
this family module); the values here match its literals.
"""

UNKNOWN_CATEGORY = "unknown_category"
UNSUPPORTED_QUERY_SYNTAX = "unsupported_query_syntax"
INVALID_DATE_RANGE = "invalid_date_range"
INVALID_REQUEST = "invalid_request"
RATE_LIMITED = "rate_limited"
NO_MATCH = "no_match"
CONTENT_UNAVAILABLE = "content_unavailable"
PDF_EXTRACTION_FAILED = "pdf_extraction_failed"
# arXiv reported matches for a page but sent none (a transient fault of theirs; retry).
EMPTY_PAGE = "empty_page"
