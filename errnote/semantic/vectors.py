"""Entry vectors: derived data beside the search index, keyed by content, never the truth.

Each indexed entry file has two vectors, one of its title and one of its whole text (title, body,
reason, fix and the head of its error), stored once per distinct text: an entry edited back to
an earlier text, or copied to a new path (`cp -a`, a rename), is not embedded again. The index's
sync tells `VectorStore.update` which files it read or dropped; texts without a vector are
embedded in one batch there, or on the next search if the model was missing then. `errnote
reindex` starts the folder afresh.

Files, under `.errnote/cache/vectors/` (ignored by git, like the index):
  docs.marshal    {file path: (entry id, title key, text key)}, keys the SHA-1 of the text (hex)
  <model>.npz     the keys and their rows (float16) for one model, one zip, replaced whole

The file map is written by the index's sync, which never loads the model; the vectors by the
search that first needs them. A sync with semantic search switched off leaves the map alone and
marks it behind (`docs.behind`): the next semantic search maps every file again first.
"""

from __future__ import annotations

import hashlib
import io
import marshal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from errnote.model.entry import Entry
    from errnote.semantic.encoder import Encoder

#: The length of a vector (`semantic.encoder.DIMENSIONS`, without importing the model's module).
DIMENSIONS = 512

#: How much of a recorded error the whole-text vector reads: its first lines say what it is, and a
#: long trace would drown the rest of the entry.
ERROR_HEAD = 300
#: How much of a query is embedded: a pasted log is read by its head (its error lines are the
#: lexical side's strength).
QUERY_HEAD = 2000


def entry_texts(entry: Entry) -> tuple[str, str]:
    """The two texts of an entry that are embedded: its title, and its whole text."""
    parts = [entry.title, entry.body, entry.reason, entry.fix, entry.error[:ERROR_HEAD]]
    return entry.title, " ".join(p.strip() for p in parts if p and p.strip())


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


@dataclass
class VectorStats:
    """What an update did (the tests read `embedded`: only new texts are embedded)."""

    embedded: int = 0
    dropped: int = 0


def _write_atomic(path: Path, data: bytes) -> None:
    from errnote.storage.files import atomic_write_bytes

    atomic_write_bytes(path, data)


class VectorStore:
    """The vectors of one notebook's entries for one model."""

    def __init__(self, cache_dir: Path, model_name: str = "") -> None:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_name)
        self.dir = cache_dir / "vectors"
        self.table_path = self.dir / f"{safe or 'none'}.npz"
        self.model_name = model_name
        self._docs: dict[str, tuple[str, str, str]] | None = None
        self._rows: dict[str, int] | None = None
        self._table: Any = None

    # --- reading -----------------------------------------------------------------------------

    def docs(self) -> dict[str, tuple[str, str, str]]:
        if self._docs is None:
            try:
                loaded = marshal.loads((self.dir / "docs.marshal").read_bytes())
                ok = isinstance(loaded, dict) and all(
                    isinstance(v, tuple) and len(v) == 3 for v in loaded.values()
                )
                self._docs = loaded if ok else {}
            except (OSError, ValueError, EOFError, TypeError):
                self._docs = {}
        return self._docs

    def _load_table(self) -> None:
        if self._rows is not None:
            return
        import numpy as np

        self._rows, self._table = {}, np.zeros((0, 0), dtype=np.float16)
        try:
            with np.load(self.table_path, allow_pickle=False) as z:
                keys, table = z["keys"], z["table"]
        except (OSError, ValueError, KeyError, EOFError):
            return  # no vectors yet, or a broken file: embedded again as needed
        if table.ndim != 2 or len(keys) != len(table) or (len(table) and table.shape[1] != DIMENSIONS):
            return  # another shape than this model's: embedded again as needed
        self._rows = {k.decode() if isinstance(k, bytes) else str(k): i for i, k in enumerate(keys)}
        self._table = table

    def missing(self) -> set[str]:
        """Keys of indexed texts without a vector."""
        self._load_table()
        assert self._rows is not None
        wanted = {k for _eid, kt, kf in self.docs().values() for k in (kt, kf)}
        return wanted - set(self._rows)

    # --- writing -----------------------------------------------------------------------------

    def update(
        self,
        changed: Mapping[str, Entry | None],
        encoder: Encoder | None = None,
        *,
        fresh: bool = False,
    ) -> VectorStats:
        """Record the files the index read (`Entry`) or dropped (`None`); with an encoder, embed
        what is new at once (without, a later `embed_missing` does).

        `fresh`: `changed` holds every file (a rebuild): forget every other path."""
        docs = {} if fresh else dict(self.docs())
        texts: dict[str, str] = {}
        for rel, entry in changed.items():
            if entry is None:
                docs.pop(rel, None)
                continue
            title, whole = entry_texts(entry)
            kt, kf = _key(title), _key(whole)
            docs[rel] = (entry.id, kt, kf)
            texts[kt], texts[kf] = title, whole
        if docs != self.docs() or fresh:
            _write_atomic(self.dir / "docs.marshal", marshal.dumps(docs))
            self._docs = docs
        return self.embed_missing(encoder, texts) if encoder is not None else VectorStats()

    def embed_missing(
        self,
        encoder: Encoder,
        known_texts: Mapping[str, str] | None = None,
        read: Callable[[str], Entry | None] | None = None,
    ) -> VectorStats:
        """Embed the indexed texts that have no vector, and drop rows no file uses any more.

        A text comes from `known_texts` (key -> text), else from the file itself through `read`
        (path -> entry; the model may have been missing when the index read it)."""
        import numpy as np

        self._load_table()
        assert self._rows is not None
        stats = VectorStats()
        texts = dict(known_texts or {})
        wanted = {k for _eid, kt, kf in self.docs().values() for k in (kt, kf)}
        if read is not None:
            for rel, (_eid, kt, kf) in self.docs().items():
                if (kt not in self._rows and kt not in texts) or (kf not in self._rows and kf not in texts):
                    entry = read(rel)
                    if entry is not None:
                        title, whole = entry_texts(entry)
                        texts[_key(title)] = title
                        texts[_key(whole)] = whole
        todo = [k for k in sorted(wanted - set(self._rows)) if k in texts]
        unused = set(self._rows) - wanted
        if not todo and not unused:
            return stats
        keep = [k for k in self._rows if k in wanted]
        rows = [self._table[self._rows[k]] for k in keep]
        if todo:
            new = encoder.encode([texts[k] for k in todo]).astype(np.float16)
            rows.extend(new)
            keep.extend(todo)
        table = np.asarray(rows, dtype=np.float16).reshape(len(keep), DIMENSIONS)
        keys = np.array([k.encode() for k in keep], dtype="S40")

        buffer = io.BytesIO()
        np.savez(buffer, keys=keys, table=table)
        _write_atomic(self.table_path, buffer.getvalue())
        self._rows = {k: i for i, k in enumerate(keep)}
        self._table = table
        stats.embedded, stats.dropped = len(todo), len(unused)
        return stats

    # --- searching ---------------------------------------------------------------------------

    def similarities(self, query_vector: Any) -> dict[str, float]:
        """{file path: cosine of the query with the entry} for every file with both vectors: the
        better of the title's and the whole text's (a short question is often close to a title and
        far from a long body)."""
        import numpy as np

        self._load_table()
        assert self._rows is not None
        if not self._rows:
            return {}
        scores = self._table.astype(np.float32) @ np.asarray(query_vector, dtype=np.float32)
        found: dict[str, float] = {}
        for rel, (_eid, kt, kf) in self.docs().items():
            it, jf = self._rows.get(kt), self._rows.get(kf)
            if it is None or jf is None:
                continue
            found[rel] = float(max(scores[it], scores[jf]))
        return found


def embed_query(encoder: Encoder, text: str) -> Any:
    """The vector of a query (its head, see QUERY_HEAD)."""
    return encoder.encode([text[:QUERY_HEAD]])[0]


#: Beside the file map: the index changed while semantic search was switched off and did not tell
#: the map (`mark_behind`); the next semantic search maps every file again first (`upkeep`).
BEHIND = "docs.behind"


def mark_behind(cache_dir: Path) -> None:
    """Say that the file map misses changes of the index (a stat when it says so already)."""
    marker = cache_dir / "vectors" / BEHIND
    if not marker.exists():
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()


def is_behind(cache_dir: Path) -> bool:
    """Whether the file map misses changes of the index (`mark_behind`)."""
    return (cache_dir / "vectors" / BEHIND).exists()


def take_behind(cache_dir: Path) -> bool:
    """Whether the file map misses changes, the mark taken away: taken before the map is made
    again, so that a change indexed meanwhile (with semantic search off) marks it anew."""
    try:
        (cache_dir / "vectors" / BEHIND).unlink()
    except FileNotFoundError:
        return False
    return True


def clear_table(cache_dir: Path) -> None:
    """Forget every vector of the notebook, for every model (`errnote reindex`); the file map
    stays (the index's rebuild has just written it)."""
    for path in (cache_dir / "vectors").glob("*.npz"):
        path.unlink(missing_ok=True)


__all__: Sequence[str] = (
    "VectorStats", "VectorStore", "clear_table", "embed_query", "entry_texts", "is_behind", "mark_behind",
    "take_behind",
)  # fmt: skip
