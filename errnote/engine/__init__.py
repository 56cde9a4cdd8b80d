"""The warm engine (issue 21): one long-running process per notebook, on a Unix socket.

`errnote serve` runs `server.serve`; the hooks, `search` and `inject` ask it through `client` (which
imports only the standard library, so a call through it costs an interpreter start plus the query)
and answer in their own process whenever it is not there, not willing or not quick. `protocol` is
what the two say to each other; `settings` is where they find each other and what config.yaml says.
"""
