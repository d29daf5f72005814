"""Safe file and URL names for things named by data (datasets, models, traits)."""

from __future__ import annotations

import hashlib
import re

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


def safe_name(name: str) -> str:
    """`name` itself when it is a plain file name, else a slug plus a short hash.

    Data can name things "../../etc" or "<script>"; such names never reach a path or a
    URL unchanged.  The hash keeps two names that slug alike apart.
    """
    if _SAFE.match(name) and ".." not in name:
        return name
    slug = re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()[:60] or "x"
    return f"{slug}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"
