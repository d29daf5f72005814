"""A folder of texts for one dataset: `<base-data>/<dataset>/texts.parquet`.

Importers that meet texts (an AnnotatedPairs file, an ICAI CSV) write them here with
`--base-out`, so pages can show examples; annotation files themselves hold ids only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ffsite._atomic import atomic_path
from ffsite._names import safe_name

TEXTS_FILE = "texts.parquet"


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
               ) -> tuple[dict[str, str], dict[str, str]] | None:
    """(prompts, responses) of `dataset`, or None when the folder has no texts for it."""
    path = texts_file(base_dir, dataset)
    if not path.is_file():
        return None
    table = pq.read_table(path).to_pydict()
    prompts, responses = {}, {}
    for kind, key, text in zip(table["kind"], table["id"], table["text"], strict=True):
        (prompts if kind == "prompt" else responses)[key] = text
    return prompts, responses
