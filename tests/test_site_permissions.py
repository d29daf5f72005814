"""A built site is readable by a web server running as another user."""

from __future__ import annotations

import os
import stat


def test_site_folders_and_files_follow_the_umask(tiny_site):
    umask = os.umask(0)
    os.umask(umask)
    for path in [tiny_site, *tiny_site.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        expected = (0o777 if path.is_dir() else 0o666) & ~umask
        assert mode == expected, f"{path}: {oct(mode)}"
