"""The ``library_*`` tools: a caller's saved papers (``spec``/``handlers``) and their full text (``index_*``)."""
