"""Capture: noticing corrections, confirmations and failures as they happen (`detect`), recording
them in the inbox (`record`; the inbox itself is `errnote.notebook.inbox`), the `run` wrapper and
the capture steps of the agent hooks (`hooks`). Part of the core: no typer, no rich."""
