"""The prompt floor: what matters now (`select`), within a budget, rendered for a prompt or a file
(`render`), and errnote's marked block in CLAUDE.md, AGENTS.md or a Cursor rule (`block`).

Part of the core: no typer, no rich; the search index (Whoosh) only when there is a query."""
