"""The ``read_paper`` tool: a paper as Markdown, page by page, from stored artifacts or the PDF pipeline."""
