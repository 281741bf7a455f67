"""One package per tool family: its tools' spec (``spec.py``) and handlers (``handlers.py``).

A family imports the floors below it and never another family; cross-family needs live in ``services/``.
"""
