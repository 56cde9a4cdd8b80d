"""The command line: typer commands that call the core and render what it returns."""

from __future__ import annotations


def main() -> None:
    """Entry point of the `errnote` console script."""
    from errnote.cli.app import app

    app(prog_name="errnote")
