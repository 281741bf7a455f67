"""The federated ``search`` tool: fan out to every source, merge, rank, expand, page (``federated`` conducts)."""
