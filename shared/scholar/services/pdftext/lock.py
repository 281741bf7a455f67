"""The one lock around pdfium, for every caller (pdftext, the PDF pipeline, patents, read_paper's renderer).

pdfium is not thread-safe: every open, extract, render or save of any document holds this lock. It is
reentrant, so a caller that already holds it (e.g. around a check and a conversion) can call a function
that takes it again.
"""

from __future__ import annotations

import threading

PDFIUM = threading.RLock()
