"""Results kept on disk between builds: the slow, deterministic fits (EigenBench, the
bootstrap ratings), stored under the hash of everything they are computed from.

A stored result must give the very bytes a fresh one would, so the key holds every
input array (its dtype, shape and bytes), every setting, the source code of the modules
that compute it and the versions of Python, numpy, scipy, pandas and the BLAS library
(whose arithmetic decides the last bits).  Values are kept as numpy arrays (an .npz
file, read without pickle, so a file in the cache can never run code) and a JSON tree
for the rest; a value with a part neither can hold exactly (an object column that is not
all text, a frame with its own index) is simply not kept.  Nothing is kept unless a
build asks (`kept_in`): library calls and tests compute as always.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib
import io
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import numpy as np
import pandas as pd

STORE_VERSION = "1"  # bump when the encoding below changes
TREE = "tree"  # the npz entry holding the JSON tree
# A dataclass field with this in its metadata is left out of the key: nothing computed
# reads it (a registry's path names its file in messages only), and a key holding it
# would tell apart the same inputs read from another folder, or by another path.
NOT_AN_INPUT = "ffsite.not_an_input"
T = TypeVar("T")

_folder: Path | None = None  # where results are kept while a build asks (`kept_in`)


class Unstorable(Exception):
    """A value with a part that cannot be kept exactly."""


@contextlib.contextmanager
def kept_in(folder: Path | None) -> Iterator[None]:
    """While inside, `remembered` keeps results under `folder` (None: nowhere)."""
    global _folder
    before, _folder = _folder, folder
    try:
        yield
    finally:
        _folder = before
        if folder is not None:
            prune(folder)


def keeping() -> bool:
    """Whether results are being kept (inside `kept_in` with a folder)."""
    return _folder is not None


KEEP_DAYS = 30  # a result no build has read or written for this long is removed


def prune(folder: Path, days: float = KEEP_DAYS) -> None:
    """Remove what no build has used for `days`: every change of the code gives every
    result a new key, so the old ones would otherwise pile up.  A result read is
    touched (`_load`); one removed while another build wanted it is computed again."""
    oldest = time.time() - days * 86400
    for path in folder.glob("*/*"):
        with contextlib.suppress(OSError):
            if path.is_file() and path.stat().st_mtime < oldest:
                path.unlink()


def remembered(kind: str, modules: tuple[ModuleType, ...], inputs: tuple,
               compute: Callable[[], T]) -> T:
    """`compute()`, or the result kept from an earlier call with the same `inputs` and the
    same source of `modules`; kept for the next call when a build keeps results."""
    folder = _folder
    if folder is None:
        return compute()
    try:
        key = digest(code_version(modules), inputs)
    except TypeError:  # an input it cannot tell apart exactly: nothing kept
        return compute()
    path = folder / kind / f"{key}.npz"
    found = _load(path)
    if found is not None:
        return found
    value = compute()
    _save(path, value)
    return value


# ------------------------------------------------------------------------ the key

@cache
def code_version(modules: tuple[ModuleType, ...]) -> str:
    """The hash of the modules' source (a package's: every module under it), this
    module's and the numeric libraries' versions."""
    parts = [STORE_VERSION, sys.version, platform.machine(), np.__version__, pd.__version__,
             _scipy_version(), _blas()]
    for module in (*modules, sys.modules[__name__]):
        source = Path(module.__file__ or "")
        files = sorted(source.parent.rglob("*.py")) if hasattr(module, "__path__") else [
            source]
        for file in files:
            parts.append(f"{module.__name__}:{file.relative_to(source.parent)}")
            parts.append(hashlib.sha256(file.read_bytes()).hexdigest())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _scipy_version() -> str:
    try:
        import scipy
    except ImportError:
        return ""
    return scipy.__version__


def _blas() -> str:
    from threadpoolctl import threadpool_info
    return ";".join(sorted(f"{i.get('internal_api')} {i.get('version')} "
                           f"{i.get('architecture')}" for i in threadpool_info()))


def digest(*parts: Any) -> str:
    """A hash of `parts`: arrays by dtype, shape and bytes, the rest by type and value."""
    hasher = hashlib.sha256()
    _feed(hasher, parts)
    return hasher.hexdigest()


def _feed(hasher: Any, value: Any) -> None:
    if isinstance(value, np.ndarray) and value.dtype != object:
        array = np.ascontiguousarray(value)
        hasher.update(f"A{array.dtype.str}{array.shape}".encode())
        hasher.update(array.tobytes())
    elif isinstance(value, np.ndarray):
        hasher.update(f"O{value.shape}".encode())
        for item in value.ravel().tolist():
            _feed(hasher, item)
    elif isinstance(value, (list, tuple)):
        hasher.update(f"L{type(value).__name__}{len(value)}".encode())
        for item in value:
            _feed(hasher, item)
    elif isinstance(value, dict):
        hasher.update(f"D{len(value)}".encode())
        for key, item in value.items():
            _feed(hasher, key)
            _feed(hasher, item)
    elif value is pd.NA or value is pd.NaT:
        hasher.update(repr(value).encode())
    elif value is None or isinstance(value, (str, int, float, np.generic, Path)):
        text = repr(value)
        hasher.update(f"{type(value).__name__}{len(text)}:{text}".encode())
    elif isinstance(value, (pd.DataFrame, pd.Series, pd.Index)):
        _feed_pandas(hasher, value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        hasher.update(f"C{type(value).__module__}.{type(value).__qualname__}".encode())
        for field in dataclasses.fields(value):
            if field.metadata.get(NOT_AN_INPUT):  # (e.g. the file it was read from)
                continue
            _feed(hasher, field.name)
            _feed(hasher, getattr(value, field.name))
    else:
        raise TypeError(f"cannot hash a {type(value).__name__} for a stored result")


def _feed_pandas(hasher: Any, value: pd.DataFrame | pd.Series | pd.Index) -> None:
    """A frame by its index, column names and columns, each by its dtype and values
    (text in one piece through json's C encoder: a Python call per value would take a
    second for a site's scores)."""
    if isinstance(value, pd.DataFrame):
        hasher.update(f"F{value.shape}".encode())
        _feed(hasher, value.index)
        _feed(hasher, value.columns)
        for position in range(value.shape[1]):
            _feed(hasher, value.iloc[:, position])
        return
    if isinstance(value, pd.RangeIndex):
        hasher.update(f"R{value.start},{value.stop},{value.step}".encode())
        return
    hasher.update(f"S{type(value).__name__}{value.dtype!r}{len(value)}".encode())
    if isinstance(value.dtype, np.dtype) and value.dtype != object:
        _feed(hasher, value.to_numpy())
        return
    if isinstance(value.dtype, pd.CategoricalDtype):
        _feed(hasher, (value.dtype.categories, value.dtype.ordered,
                       np.asarray(pd.Categorical(value).codes)))
        return
    values = value.tolist()
    if set(map(type, values)) <= _JSON_KINDS:  # json tells these apart exactly
        text = json.dumps(values, ensure_ascii=False)
        hasher.update(f"J{len(text)}:".encode())
        hasher.update(text.encode("utf-8", "surrogatepass"))
    else:
        _feed(hasher, values)


_JSON_KINDS = {str, int, float, bool, type(None)}


# ------------------------------------------------------------------- the encoding

def encode(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    """A JSON tree for `value`, its numeric arrays put in `arrays`."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if type(value) in (int, float):
        return value
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray)
                                         and value.dtype != object):
        if value.dtype.kind not in "biufc":
            raise Unstorable(str(value.dtype))
        name = f"a{len(arrays)}"
        arrays[name] = np.asarray(value)
        return {"t": "scalar" if isinstance(value, np.generic) else "array", "k": name}
    if isinstance(value, np.ndarray):
        if value.ndim != 1 or not all(type(v) is str for v in value):
            raise Unstorable("an object array that is not text")
        return {"t": "strings", "v": value.tolist()}
    if isinstance(value, (list, tuple)):
        return {"t": type(value).__name__, "v": [encode(v, arrays) for v in value]}
    if type(value) is dict:
        return {"t": "dict", "v": [[encode(k, arrays), encode(v, arrays)]
                                   for k, v in value.items()]}
    if isinstance(value, pd.DataFrame):
        return _encode_frame(value, arrays)
    if dataclasses.is_dataclass(value) and _allowed(type(value)):
        return {"t": "dataclass", "c": f"{type(value).__module__}:{type(value).__qualname__}",
                "v": [[f.name, encode(getattr(value, f.name), arrays)]
                      for f in dataclasses.fields(value) if f.init]}
    raise Unstorable(type(value).__name__)


def _encode_frame(frame: pd.DataFrame, arrays: dict[str, np.ndarray]) -> Any:
    """A frame with the default index: its columns, each with its exact dtype (pandas 3
    infers text columns as `str`, so a column built again from its values alone could
    come back in another dtype)."""
    index = frame.index
    if not (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1):
        raise Unstorable("a frame with its own index")
    if not all(type(c) is str for c in frame.columns) or not frame.columns.is_unique:
        raise Unstorable("a frame whose column names are not distinct text")
    columns = []
    for name in frame.columns:
        column = frame[name]
        dtype = column.dtype
        if isinstance(dtype, pd.StringDtype) and dtype.na_value is not pd.NA:
            values = column.to_numpy(dtype=object)
            texts = [None if not isinstance(v, str) else v for v in values]
            encoded = {"t": "text", "storage": dtype.storage, "v": texts}
        elif isinstance(dtype, np.dtype):
            encoded = encode(column.to_numpy(), arrays)
        else:
            raise Unstorable(f"column {name}: {dtype}")
        columns.append([name, encoded])
    return {"t": "frame", "rows": len(frame), "names": str(frame.columns.dtype),
            "v": columns}


def _decode_frame(tree: Any, arrays: Any) -> pd.DataFrame:
    index = pd.RangeIndex(tree["rows"])
    columns = {}
    for name, column in tree["v"]:
        if isinstance(column, dict) and column["t"] == "text":
            dtype = pd.StringDtype(column["storage"], na_value=np.nan)
            columns[name] = pd.Series(pd.array(column["v"], dtype=dtype), index=index)
        else:
            values = decode(column, arrays)
            columns[name] = pd.Series(values, index=index, dtype=values.dtype)
    frame = pd.DataFrame(columns, index=index)
    frame.columns = pd.Index(list(columns), dtype=tree["names"])
    return frame


def _allowed(cls: type) -> bool:
    """Only ffsite's result classes are rebuilt from a file."""
    return cls.__module__.startswith("ffsite.metrics.")


def decode(tree: Any, arrays: Any) -> Any:
    """The value `encode` made `tree` from."""
    if not isinstance(tree, dict):
        return tree
    kind, value = tree["t"], tree.get("v")
    if kind == "array":
        return arrays[tree["k"]]
    if kind == "scalar":
        return arrays[tree["k"]][()]
    if kind == "strings":
        return np.array(value, dtype=object) if value else np.zeros(0, dtype=object)
    if kind in ("list", "tuple"):
        items = [decode(v, arrays) for v in value]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {decode(k, arrays): decode(v, arrays) for k, v in value}
    if kind == "frame":
        return _decode_frame(tree, arrays)
    if kind == "dataclass":
        module, _, name = tree["c"].partition(":")
        cls = getattr(importlib.import_module(module), name)
        if not (dataclasses.is_dataclass(cls) and _allowed(cls)):
            raise ValueError(f"not a result class: {tree['c']}")
        return cls(**{field: decode(v, arrays) for field, v in value})
    raise ValueError(f"unknown kind {kind!r}")


# ------------------------------------------------------------------------ the files

def _load(path: Path) -> Any | None:
    """The value kept at `path`, or None when there is none or it cannot be read (a
    damaged file is computed again and replaced)."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
        tree = json.loads(arrays.pop(TREE).tobytes().decode("utf-8"))
        value = decode(tree, arrays)
    except Exception:  # noqa: BLE001 - any damage is a miss, never an error
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # used: kept by `prune`
    return value


def _save(path: Path, value: Any) -> None:
    """Keep `value` at `path`, written beside it and renamed (a reader never sees half a
    file); a value that cannot be kept, or a cache that cannot be written, is skipped."""
    arrays: dict[str, np.ndarray] = {}
    try:
        tree = encode(value, arrays)
    except Unstorable:
        return
    arrays[TREE] = np.frombuffer(json.dumps(tree).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(buffer.getvalue())
            os.replace(name, path)
        finally:
            Path(name).unlink(missing_ok=True)
