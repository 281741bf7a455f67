"""Scholar MCP: scholarly literature, books, patents and standards for AI agents."""
