"""The redaction floor: secrets found by shape (`shapes`) and by context (`context`, `commands`,
judged in `values`), masked by `secrets.redact`; whole entries masked by `entry.redact_entry`.
Imports only the model and the leaves."""
