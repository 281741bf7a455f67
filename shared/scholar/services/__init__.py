"""Shared logic the families build on, above the sources, the store and the runtime.

``paper_lookup`` (one paper by any identifier), ``pdftext`` (PDF → Markdown), ``cite`` (citation writers),
``health`` (usage records, the doctor), ``fulltext`` (the PDF pipeline's steps, reading), ``library`` (a caller's
library: keeping, finding, exporting, its full-text index). In that order: a service imports only those before it.
"""
