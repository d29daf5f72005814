"""What a build does to its own process: the allocator its tables are made with, and
how its pages keep strings."""

from __future__ import annotations

import pandas as pd
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


def test_pages_keep_python_strings_and_the_callers_setting_comes_back(tmp_path, monkeypatch):
    """The page builders run with pandas' strings in Python objects (faster for their many
    small frames); the caller's own setting is back after the build."""
    from ffsite.site import build as build_module

    seen = []
    monkeypatch.setattr(build_module, "PAGE_BUILDERS", [
        lambda ctx: seen.append((pd.get_option("mode.string_storage"),
                                 pd.Series(["a page's string"]).array.dtype.storage)),
        *build_module.PAGE_BUILDERS])
    with pd.option_context("mode.string_storage", "pyarrow"):
        build_tiny(tmp_path)
        after = pd.get_option("mode.string_storage")
    assert seen == [("python", "python")]
    assert after == "pyarrow"
