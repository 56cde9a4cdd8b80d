"""An entry's life cycle: how its confidence moves (`confidence`), how it goes stale (`staleness`)
and how a notebook is checked (`lint`)."""
