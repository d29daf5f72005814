"""Replace a folder with a new one so that, at every instant, it is whole: the old site or
the new one, never neither and never half of one.

Builds write into a hidden staging folder beside the target (`.NAME-XXXXXXXX`), then swap
it in.  On Linux the swap is one atomic `renameat2(RENAME_EXCHANGE)`; elsewhere two renames
(a moment without the folder).  A lock on the parent folder keeps two builds from swapping
into one target at once, and lets a build remove the staging folders a killed build left.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

_RENAME_EXCHANGE = 2  # linux/fs.h


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (flock on the folder itself: no lock file to
    leave behind); wait for another build that holds it."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def staging_folder(out: Path) -> Path:
    """A new empty hidden folder beside `out`, readable as a site folder must be."""
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp's 0700 would hide the site from a web server
    return staging


def remove_leftovers(out: Path) -> None:
    """Remove staging folders of `out` that a killed build left (call under `locked`)."""
    pattern = re.compile(re.escape(f".{out.name}-") + r"[A-Za-z0-9_]{8}(-old)?")
    for entry in out.parent.iterdir():
        if pattern.fullmatch(entry.name) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)


def swap_in(staging: Path, out: Path) -> None:
    """Put `staging` where `out` is; the old site is removed once the new one is in."""
    if not out.exists():
        os.rename(staging, out)
        return
    if _exchange(staging, out):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the old site
        return
    old = staging.with_name(staging.name + "-old")
    os.rename(out, old)
    try:
        os.rename(staging, out)
    except OSError:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux 3.15+, glibc 2.28+); False where unsupported."""
    libc = _libc()
    renameat2 = getattr(libc, "renameat2", None) if libc else None
    if renameat2 is None:
        return False
    at_cwd = -100  # AT_FDCWD
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):  # kernel or file system
        return False
    raise OSError(code, os.strerror(code), str(b))


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name, use_errno=True) if name else None
