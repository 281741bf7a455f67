"""A caller's personal library: saved papers, collections, tags, notes, PDFs kept, a full-text index.

Core, not a family: the research family's library tools and the PDF pipeline's download_paper finish step
(scholar.services.fulltext) both write here. Storage is the LibraryTable (scholar.store.library.table); the full-text
index
is one SQLite FTS5 file per caller in S3 (scholar.services.library.index).
"""
