"""Integrations: errnote served to other programs (an MCP server, importers and exporters)."""
