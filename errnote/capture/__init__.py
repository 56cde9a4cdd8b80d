"""Capture: noticing corrections, confirmations and failures as they happen (detection, the inbox,
the `run` wrapper). Part of the core: no typer, no rich."""
