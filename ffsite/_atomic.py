"""Atomic file writes: write beside the target, then rename over it.

A crash or a full disk leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ffsite.errors import FfsiteError


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


_FILE_MODE = _file_mode()


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `target`; rename it over `target` on success."""
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                        dir=target.parent)
    except OSError as exc:
        raise FfsiteError(f"{target}: cannot write ({exc.strerror}); check the folder "
                          "exists and is writable") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.chmod(tmp, _FILE_MODE)  # mkstemp makes 0600; give the usual umask-based mode
        os.replace(tmp, target)
    except OSError as exc:
        raise FfsiteError(f"{target}: write failed ({exc.strerror}); nothing was changed; "
                          "free some space or pick another --out") from None
    finally:
        tmp.unlink(missing_ok=True)


def write_bytes(target: str | os.PathLike, data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text(target: str | os.PathLike, text: str) -> None:
    write_bytes(target, text.encode("utf-8"))
