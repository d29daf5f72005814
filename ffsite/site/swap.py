"""Replace a folder with a new one so that, at every instant, it is whole: the old site or
the new one, never neither and never half of one.

Builds write into a hidden staging folder beside the target (`.NAME-XXXXXXXX`), then swap
it in.  On Linux the swap is one atomic `renameat2(RENAME_EXCHANGE)`; elsewhere two renames
(a moment without the folder: the old site waits as `.NAME-XXXXXXXX-old`).  A lock on the
parent folder keeps two builds from swapping into one target at once, and lets a build
clean up after a killed one (`recover`): put the old site back if the kill fell between
the two renames, and remove the staging folders left.  A folder counts as ffsite's only
when it carries a marker ffsite wrote in it (`STAGING_MARKER` from its creation, the
site's `SITE_MARKER` once complete): a user's `.site-settings/` is never touched.
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
SITE_MARKER = ".ffsite-site"  # in a built site: a rebuild may replace the folder
STAGING_MARKER = ".ffsite-staging"  # in a staging folder until it is swapped in


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
    (staging / STAGING_MARKER).write_text(
        "ffsite build writes the site here, then swaps it in; if a killed build left this "
        "folder, the next build removes it\n", "utf-8")
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp's 0700 would hide the site from a web server
    return staging


def recover(out: Path) -> None:
    """Clean up after a killed build (call under `locked`): if `out` is missing and the
    old site waits beside it (a kill between the two renames of the fallback swap), put
    it back; then remove the staging folders left.  Only folders ffsite marked."""
    pattern = re.compile(re.escape(f".{out.name}-") + r"[A-Za-z0-9_]{8}(-old)?")
    ours = [entry for entry in out.parent.iterdir()
            if pattern.fullmatch(entry.name) and entry.is_dir() and not entry.is_symlink()
            and any((entry / marker).is_file() for marker in (STAGING_MARKER, SITE_MARKER))]
    old = [entry for entry in ours if entry.name.endswith("-old")
           and (entry / SITE_MARKER).is_file()]
    if old and not os.path.lexists(out):
        previous = max(old, key=lambda entry: entry.stat().st_mtime_ns)
        os.rename(previous, out)
        ours.remove(previous)
    for entry in ours:
        shutil.rmtree(entry, ignore_errors=True)


def swap_in(staging: Path, out: Path) -> None:
    """Put `staging` where `out` is; the old site is removed once the new one is in."""
    (staging / STAGING_MARKER).unlink(missing_ok=True)  # a site, no longer a staging folder
    if not out.exists():
        os.rename(staging, out)
        return
    if _exchange(staging, out):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the old site
        return
    old = staging.with_name(staging.name + "-old")
    if os.path.lexists(old):  # a rename would replace an empty folder of that name
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(old))
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
