"""A site built from unchanged inputs is current: kept as it is, in a second (issue 28's
warm build); any change of an input, of ffsite's code included, builds it again."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from site_fixture import REPO, write_content, write_tiny

from ffsite.site import fingerprint as fp
from ffsite.site.build import build_site


@pytest.fixture
def inputs(tmp_path):
    write_tiny(tmp_path / "annotations")
    write_content(tmp_path / "content")
    shutil.copytree(REPO / "templates", tmp_path / "templates")
    return tmp_path


def build(root, **options):
    return build_site(root / "annotations", root / "site", content=root / "content",
                      templates=root / "templates", **options)


def stamps(site):
    return {p: p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}


def test_unchanged_inputs_keep_the_site_and_say_so(inputs):
    first = build(inputs)
    assert not first.current
    before = stamps(inputs / "site")
    second = build(inputs)
    assert second.current and (second.pages, second.files, second.bytes) == (
        first.pages, first.files, first.bytes)
    assert stamps(inputs / "site") == before  # not one file written
    recorded = json.loads((inputs / "site" / fp.INPUTS).read_text())
    assert recorded["pages"] == first.pages and len(recorded["fingerprint"]) == 64


@pytest.mark.parametrize("change", ["annotation", "template", "content", "force"])
def test_a_changed_input_builds_again(inputs, change):
    build(inputs)
    if change == "annotation":
        path = next((inputs / "annotations").rglob("*.parquet"))
        path.write_bytes(path.read_bytes())  # the same bytes: still current
        assert build(inputs).current
        target = inputs / "annotations" / "extra.parquet"
        shutil.copy(path, target)
        os.remove(path)  # the same votes under another name: an input changed
    elif change == "template":
        page = inputs / "templates" / "page.html"
        page.write_text(page.read_text() + "\n")
    elif change == "content":
        (inputs / "content" / "about.md").write_text("Other words.\n")
    again = build(inputs, force=change == "force")
    assert not again.current


def test_the_record_is_the_same_for_the_same_inputs_anywhere(inputs, tmp_path_factory):
    build(inputs)
    other = tmp_path_factory.mktemp("again")
    for name in ("annotations", "content", "templates"):
        shutil.copytree(inputs / name, other / name)
    build(other)
    assert (other / "site" / fp.INPUTS).read_bytes() == (inputs / "site" / fp.INPUTS
                                                         ).read_bytes()


def test_the_code_and_the_libraries_are_inputs(inputs, monkeypatch):
    files = sorted((inputs / "annotations").rglob("*.parquet"))
    one = fp.fingerprint(files, inputs / "content", inputs / "templates", None, None)
    monkeypatch.setattr(fp, "LIBRARIES", (*fp.LIBRARIES, "pytest"))
    assert fp.fingerprint(files, inputs / "content", inputs / "templates", None, None) != one
    monkeypatch.setattr(fp, "LIBRARIES", fp.LIBRARIES[:-1])
    assert fp.fingerprint(files, inputs / "content", inputs / "templates", None,
                          "2026-01-01") != one  # the "last updated" date


def test_a_changed_base_data_file_builds_again(inputs):
    from site_fixture import write_tiny_texts

    from ffsite.datasets.texts import read_texts, write_texts

    write_tiny_texts(inputs / "base")
    base = inputs / "base"
    assert not build(inputs, base_data=base).current
    assert build(inputs, base_data=base).current  # its hashes now come from the cache
    prompts, responses = read_texts(base, "d")
    write_texts(base, "d", {**prompts, "p-new": "Another prompt?"}, responses)
    assert not build(inputs, base_data=base).current


def test_the_base_data_hash_reads_every_file_by_its_path_and_no_linked_folder(tmp_path):
    base, elsewhere, empty = tmp_path / "base", tmp_path / "elsewhere", tmp_path / "empty"
    for folder in (base / "b", elsewhere, empty):
        folder.mkdir(parents=True)
    (base / "a.txt").write_text("one")
    (base / "b" / "c.txt").write_text("two")
    (elsewhere / "d.txt").write_text("three")
    (base / "linked").symlink_to(elsewhere, target_is_directory=True)

    def base_part() -> str:
        return fp.fingerprint_parts([], empty, empty, base, None)["base"]

    first = base_part()
    assert base_part() == first  # (the second from the kept hashes)
    (elsewhere / "d.txt").write_text("changed")  # behind a linked folder: not read
    assert base_part() == first
    (base / "b" / "c.txt").rename(base / "b" / "e.txt")  # the same bytes, another path
    renamed = base_part()
    assert renamed != first
    moved = base / "b" / "e.txt"
    before = moved.stat().st_mtime_ns
    moved.write_text("TWO")  # the same size, other bytes, a later time
    os.utime(moved, ns=(before + 10**9, before + 10**9))
    assert base_part() not in (first, renamed)
    assert fp.fingerprint_parts([], empty, empty, tmp_path / "missing", None)["base"] == (
        fp.fingerprint_parts([], empty, empty, empty, None)["base"])
