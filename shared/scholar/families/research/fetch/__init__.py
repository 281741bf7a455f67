"""The ``fetch`` tool: one search result in full, in the shape ChatGPT's connectors and deep research expect."""
