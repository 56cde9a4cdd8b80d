"""Integrations: what talks to other programs. Agent hooks and their settings files (Claude Code,
Codex, Gemini), the MCP server, import and export, agents' rule folders, the git merge driver's
registration, the user's editor."""
