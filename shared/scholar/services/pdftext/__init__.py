"""PDF text → Markdown with pypdfium2: a library every family may use (the pdf pipeline, arXiv, standards).

Not a family (no tools, no function): families never import each other, so the converter lives here.
"""
