"""What a build does to its own process: the allocator its tables are made with."""

from __future__ import annotations

import pyarrow as pa
from site_fixture import build_tiny


def test_a_build_allocates_with_the_c_library_and_gives_the_callers_pool_back(
        tmp_path, monkeypatch):
    from ffsite.site import build as build_module

    seen = []
    monkeypatch.setattr(build_module, "PAGE_BUILDERS", [
        lambda ctx: seen.append(pa.default_memory_pool().backend_name),
        *build_module.PAGE_BUILDERS])
    original = pa.default_memory_pool()
    pa.set_memory_pool(pa.mimalloc_memory_pool())  # pyarrow's default on Linux wheels
    try:
        site = build_tiny(tmp_path)
        after = pa.default_memory_pool().backend_name
    finally:
        pa.set_memory_pool(original)
    assert seen == ["system"]
    assert after == "mimalloc"
    assert (site / "index.html").is_file()
