"""The model floor: what an entry is (`entry`), where it applies (`scope`), its one dict/JSON
encoding (`codec`), time values (`timespec`), read-time arithmetic (`confidence`, `staleness`) and
size limits (`limits`). Imports only the leaves (`errors`, `text`)."""
