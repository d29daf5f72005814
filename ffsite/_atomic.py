"""Atomic file writes: write beside the target, then rename over it.

A crash or a full disk leaves either the old file or the new one, never half of one.
Nothing that ffsite did not create is ever deleted: a target that is a device, a pipe or
a folder, or whose folder is a file, is refused before anything is touched.
"""

from __future__ import annotations

import contextlib
import os
import secrets
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
    target = _real_target(Path(target))
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


def _real_target(target: Path) -> Path:
    """Where to write: through a symlink to the file it names (the link stays a link);
    refused when the target is a device, a pipe or a folder, which a rename would replace
    with a plain file (`--out /dev/full` as root once replaced the device), or when a
    folder it would go in is a file."""
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    if os.path.lexists(target) and not target.is_file():
        kind = "a folder" if target.is_dir() else "not a regular file (a device or pipe)"
        raise FfsiteError(f"{target}: is {kind}; give the path of a file to write")
    for folder in target.parents:
        if folder.is_dir():
            break
        if os.path.lexists(folder):
            raise FfsiteError(f"{target}: {folder} is not a folder; give a path in a folder")
    return target


def write_bytes(target: str | os.PathLike, data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text(target: str | os.PathLike, text: str) -> None:
    write_bytes(target, text.encode("utf-8"))


@contextlib.contextmanager
def all_or_nothing(*targets: str | os.PathLike) -> Iterator[None]:
    """Files written (atomically) inside the block all stay; if the block fails, every
    target is put back as it was, so two files that belong together (votes and their
    texts) are replaced both or neither.  Targets are checked first (`_real_target`):
    what is not a regular file is refused before anything is touched, and on failure
    only what the block created is removed."""
    targets_ = [_real_target(Path(t)) for t in targets]
    existed = {target for target in targets_ if target.is_file()}
    new_folders = [folder for t in targets_ for folder in t.parents if not folder.exists()]
    backups: dict[Path, Path] = {}
    try:
        for target in existed:
            # The old bytes, kept by a second name (never one in use: link() refuses).
            backup = target.with_name(f".{target.name}.{secrets.token_hex(6)}.old")
            try:
                os.link(target, backup)
            except OSError as exc:
                raise FfsiteError(f"{target}: cannot keep the previous file while writing "
                                  f"its replacement ({exc.strerror}); check the folder is "
                                  "writable") from None
            backups[target] = backup
        yield
    except BaseException:
        for target in targets_:
            if target in backups:
                # (If the target was never replaced, both names are one file and rename
                # does nothing: `finally` removes the backup name.)
                os.replace(backups[target], target)
            elif target not in existed and target.is_file() and not target.is_symlink():
                target.unlink()  # the block wrote it
        for folder in new_folders:  # deepest first; each is empty once its file is gone
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    finally:
        for backup in backups.values():
            backup.unlink(missing_ok=True)
