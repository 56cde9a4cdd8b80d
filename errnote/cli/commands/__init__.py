"""The command groups of the `errnote` CLI, one module each; `errnote.cli.app` assembles them."""
