"""A folder of texts for one dataset: `<base-data>/<dataset>/texts.parquet`.

Importers that meet texts (an AnnotatedPairs file, an ICAI CSV) write them here with
`--base-out`, so pages can show examples; annotation files themselves hold ids only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ffsite._atomic import atomic_path
from ffsite._names import safe_name

TEXTS_FILE = "texts.parquet"


class TextsById(Mapping[str, str]):
    """Texts keyed by id, held as one Arrow string array: a text becomes a Python string
    only when asked for.  A build shows a few hundred of a dataset's texts; as a dict of
    strings AlpacaEval's 53,926 answers took 87 MB of the build's memory, and as long to
    make.  A repeated id keeps its last text, as `dict(zip(ids, texts))` would."""

    def __init__(self, ids: Sequence[str] | pd.Series, texts: Sequence[str] | pd.Series
                 ) -> None:
        ids = ids.tolist() if isinstance(ids, pd.Series) else list(ids)
        self._at = dict(zip(ids, range(len(ids)), strict=True))
        self._texts = _strings(texts)
        if len(self._texts) != len(ids):
            raise ValueError(f"{len(ids)} ids for {len(self._texts)} texts")

    def __getitem__(self, key: str) -> str:
        return self._texts[self._at[key]].as_py()

    def __contains__(self, key: object) -> bool:
        return key in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)

    def lengths(self, keys: Sequence[str] | np.ndarray) -> np.ndarray:
        """The length in characters of each key's text; 0 for a key without one."""
        at = np.fromiter((self._at.get(key, -1) for key in keys), np.int64, len(keys))
        counts = pc.fill_null(pc.utf8_length(self._texts), 0).to_numpy()
        return np.where(at >= 0, counts[np.maximum(at, 0)] if len(counts) else 0, 0)

    def plus(self, ids: Sequence[str] | pd.Series, texts: Sequence[str] | pd.Series
             ) -> TextsById:
        """These texts and more; a new text replaces the one its id had."""
        more = TextsById(ids, texts)
        start = len(self._texts)
        combined = TextsById([], [])
        combined._at = self._at | {key: start + at for key, at in more._at.items()}
        combined._texts = pa.concat_arrays([self._texts, more._texts])
        return combined


def _strings(texts: Sequence[str] | pd.Series | pa.Array | pa.ChunkedArray) -> pa.Array:
    """`texts` as one Arrow array of (large) strings."""
    if not isinstance(texts, pa.Array | pa.ChunkedArray):
        texts = pa.array(texts, None if isinstance(texts, pd.Series) else pa.large_string())
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    return texts.cast(pa.large_string())


def text_lengths(texts: Mapping[str, str], keys: Sequence[str] | np.ndarray) -> np.ndarray:
    """The length in characters of each key's text in `texts`; 0 without one."""
    if isinstance(texts, TextsById):
        return texts.lengths(keys)
    return np.fromiter((len(texts.get(key) or "") for key in keys), np.int64, len(keys))


def text_ids(prefix: str, texts: Sequence[str]) -> list[str]:
    """Stable ids for many texts at once: a prefix and a 64-bit hash in hex.

    pandas' hash_array (SipHash with a fixed key) runs in C over the whole list; the same
    text always gets the same id, on any machine and in any run.
    """
    if not len(texts):
        return []
    hashes = pd.util.hash_array(np.asarray(texts, dtype=object), categorize=False)
    hexed = hashes.astype(">u8").tobytes().hex().encode("ascii")  # 16 digits each
    digits = pa.FixedSizeBinaryArray.from_buffers(pa.binary(16), len(hashes),
                                                  [None, pa.py_buffer(hexed)])
    return pc.binary_join_element_wise(prefix, digits.cast(pa.binary()).cast(pa.string()),
                                       "").to_pylist()


def text_id(prefix: str, text: str) -> str:
    """The id of one text (see `text_ids`)."""
    return text_ids(prefix, [text])[0]


def texts_file(base_dir: str | os.PathLike, dataset: str) -> Path:
    """Where the texts of `dataset` live under `base_dir`."""
    return Path(base_dir) / safe_name(dataset) / TEXTS_FILE


def write_texts(base_dir: str | os.PathLike, dataset: str,
                prompts: Mapping[str, str], responses: Mapping[str, str]) -> Path:
    """Write (or replace) the texts of `dataset` under `base_dir`; return the file."""
    kinds = ["prompt"] * len(prompts) + ["response"] * len(responses)
    ids = [*prompts, *responses]
    texts = [*prompts.values(), *responses.values()]
    order = sorted(range(len(ids)), key=lambda i: (kinds[i], ids[i]))
    table = pa.table({
        "kind": pa.array([kinds[i] for i in order]).dictionary_encode(),
        "id": pa.array([ids[i] for i in order]),
        "text": pa.array([texts[i] for i in order]),
    })
    target = texts_file(base_dir, dataset)
    with atomic_path(target) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return target


def read_texts(base_dir: str | os.PathLike, dataset: str
               ) -> tuple[TextsById, TextsById] | None:
    """(prompts, responses) of `dataset`, or None when the folder has no texts for it."""
    path = texts_file(base_dir, dataset)
    if not path.is_file():
        return None
    table = pq.read_table(path)
    is_prompt = pc.fill_null(pc.equal(table["kind"].cast(pa.string()), "prompt"), False)
    kept = [table.filter(is_prompt), table.filter(pc.invert(is_prompt))]
    prompts, responses = (TextsById(part["id"].to_pylist(), part["text"]) for part in kept)
    return prompts, responses
