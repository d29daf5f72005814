"""The one reader of JSON, TOML and YAML that users and datasets provide, with limits.

Settings (site.toml, models.toml, base-data.toml), dataset files (AlpacaEval, Behavioral
Profiling's contributions and prompt files, EQ-Bench 3, HH-RLHF lines) and the metadata
inside annotation files are all parsed here.  A file too large, nested too deeply, not
UTF-8 or not valid is one `FfsiteError` line naming the file (and, where the parser knows
it, the line and column), never a traceback: deep nesting would otherwise end in a
RecursionError in the parser or in whatever walks the value next (libyaml crashes).
"""

from __future__ import annotations

import gzip
import json
import os
import tomllib
import zlib
from pathlib import Path
from typing import Any

import yaml

from ffsite.errors import FfsiteError

MAX_DEPTH = 64  # levels of nesting; the formats read here need fewer than ten
MAX_BYTES = 1 << 30  # a data file (uncompressed); the largest real one is 23 MB
MAX_SETTINGS_BYTES = 8 << 20  # a settings file; the shipped models.toml is 30 kB


def read_bytes(path: str | os.PathLike, *, max_bytes: int = MAX_BYTES,
               hint: str = "") -> bytes:
    """The file's bytes (a .gz file's uncompressed), refused beyond `max_bytes`."""
    path = Path(path)
    suffix = f"; {hint}" if hint else ""
    try:
        if path.suffix == ".gz":
            data = _unpacked(path, max_bytes)
        else:
            if path.stat().st_size > max_bytes:
                raise _too_large(path, max_bytes)
            data = path.read_bytes()
    except FileNotFoundError:
        raise FfsiteError(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise FfsiteError(f"{path}: is a folder; give the file") from None
    except (OSError, EOFError, zlib.error) as exc:
        raise FfsiteError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})"
                          f"{suffix}") from None
    if len(data) > max_bytes:
        raise _too_large(path, max_bytes)
    return data


READ_CHUNK = 1 << 20


def _unpacked(path: Path, max_bytes: int) -> bytes:
    """A gzipped file's bytes, read a chunk at a time up to `max_bytes` (one read of
    `max_bytes` would ask the system for all of them at once: 1 GB for a 4 MB file)."""
    chunks, size = [], 0
    with gzip.open(path, "rb") as handle:
        while chunk := handle.read(min(READ_CHUNK, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                break
    return b"".join(chunks)


def _too_large(path: Path, max_bytes: int) -> FfsiteError:
    return FfsiteError(f"{path}: larger than {max_bytes / 2**20:,.0f} MB (uncompressed); "
                       "is this the right file?")


def _text(data: bytes | str, source: str, suffix: str) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FfsiteError(f"{source}: not UTF-8 text (at byte offset {exc.start})"
                          f"{suffix}") from None


def loads_json(data: bytes | str, *, source: str, max_depth: int = MAX_DEPTH,
               hint: str = "") -> Any:
    """Parse JSON text; `source` names it in errors ("file.json", "file.jsonl: line 3")."""
    suffix = f"; {hint}" if hint else ""
    text = _text(data, source, suffix)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FfsiteError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno}, "
                          f"column {exc.colno}){suffix}") from None
    except RecursionError:
        raise _too_deep(source, max_depth, suffix) from None
    except ValueError:  # Python reads no number of more than 4,300 digits
        raise FfsiteError(f"{source}: not valid JSON (a number too long to read)"
                          f"{suffix}") from None
    check_depth(value, source=source, max_depth=max_depth, hint=hint)
    return value


def read_json(path: str | os.PathLike, *, max_bytes: int = MAX_BYTES,
              max_depth: int = MAX_DEPTH, hint: str = "") -> Any:
    """A JSON file (gzipped when its name ends in .gz), parsed within the limits.
    `hint` is what to do about a broken file ("fetch it again"), added to its error."""
    return loads_json(read_bytes(path, max_bytes=max_bytes, hint=hint), source=str(path),
                      max_depth=max_depth, hint=hint)


def read_toml(path: str | os.PathLike, *, max_bytes: int = MAX_SETTINGS_BYTES,
              max_depth: int = MAX_DEPTH, hint: str = "fix the file") -> dict[str, Any]:
    """A TOML file, parsed within the limits."""
    suffix = f"; {hint}" if hint else ""
    text = _text(read_bytes(path, max_bytes=max_bytes, hint=hint), str(path), suffix)
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FfsiteError(f"{path}: not valid TOML ({exc}){suffix}") from None
    except RecursionError:
        raise _too_deep(str(path), max_depth, suffix) from None
    check_depth(value, source=str(path), max_depth=max_depth, hint=hint)
    return value


_FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 10x faster
# libyaml nests in C: a text nested some 20,000 levels deep crashes the process outright.
# Every level needs one of these characters, so a text with fewer of them cannot be that
# deep; any other text goes to the pure-Python parser, which stops with a RecursionError.
_YAML_NESTING = "[{-:?"
_FAST_YAML_MAX = 2_000


def read_yaml(path: str | os.PathLike, *, max_bytes: int = MAX_SETTINGS_BYTES,
              max_depth: int = MAX_DEPTH, hint: str = "") -> Any:
    """A YAML file (safe loading: plain data only), parsed within the limits."""
    suffix = f"; {hint}" if hint else ""
    text = _text(read_bytes(path, max_bytes=max_bytes, hint=hint), str(path), suffix)
    nesting = sum(text.count(c) for c in _YAML_NESTING)
    loader = _FAST_YAML if nesting < _FAST_YAML_MAX else yaml.SafeLoader
    try:
        value = yaml.load(text, Loader=loader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as exc:
        reason = " ".join(str(exc).split())
        raise FfsiteError(f"{path}: not valid YAML ({reason}){suffix}") from None
    except RecursionError:
        raise _too_deep(str(path), max_depth, suffix) from None
    check_depth(value, source=str(path), max_depth=max_depth, hint=hint)
    return value


def check_depth(value: Any, *, source: str, max_depth: int = MAX_DEPTH, hint: str = "") -> None:
    """Refuse lists and tables nested more than `max_depth` levels deep (walked without
    recursion, so the check itself cannot overflow).  A list or table YAML shares
    between places (an alias) is walked again only when reached deeper than before, so
    a "billion laughs" document costs its size, not its expansion."""
    deepest: dict[int, int] = {}
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            raise _too_deep(source, max_depth, f"; {hint}" if hint else "")
        if deepest.get(id(item), 0) >= depth:
            continue
        deepest[id(item)] = depth
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list))


def _too_deep(source: str, max_depth: int, suffix: str) -> FfsiteError:
    return FfsiteError(f"{source}: nested too deeply (more than {max_depth} levels of lists "
                       f"and tables; the format needs a few){suffix}")
