"""The operations tools: ``source_health`` and ``get_server_info``."""
