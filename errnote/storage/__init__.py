"""The storage floor: the files of a notebook. `layout` (paths, ids), `files` (atomic writes, locks,
the cache folder), `frontmatter` (the one YAML encoding of an entry), `comments` (comment keeping),
`store` (the Store), `catalog` (the parsed-entry cache), `watch`, `merge` (the 3-way entry merge),
`history` (provenance from git), `processes` (pid liveness)."""
