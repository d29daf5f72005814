"""`fetch --sources` on a hostile declaration (issue 28): an entry that is not a table is
one line, and a dataset name cannot lead outside --cache-dir."""

from __future__ import annotations

import pytest
from helpers import run_main

FILE = '{ path = "f.txt", url = "https://example.invalid/f.txt", sha256 = "unverified" }'


@pytest.mark.parametrize(("declaration", "needle"), [
    ("[x]\nfiles = [1]\n", "[[x.files]] entry 0: must be a table"),
    ('[x]\nfiles = ["f.txt"]\n', "[[x.files]] entry 0: must be a table"),
    (f'[x]\nfiles = [{FILE}, [1, 2]]\n', "[[x.files]] entry 1: must be a table"),
    (f'[".."]\nfiles = [{FILE}]\n', "[..]: a dataset name is a plain folder name"),
    (f'["../../escape"]\nfiles = [{FILE}]\n', "a dataset name is a plain folder name"),
    (f'["a/b"]\nfiles = [{FILE}]\n', "a dataset name is a plain folder name"),
    (f'["/tmp/x"]\nfiles = [{FILE}]\n', "a dataset name is a plain folder name"),
    ('[x]\nfiles = [{ path = "f\\u0000", url = "https://e.invalid/f", sha256 = "unverified" }]'
     "\n", "'path': text holds the control character U+0000"),
    ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply"),
])
def test_a_bad_declaration_is_one_line_and_creates_nothing(tmp_path, monkeypatch, capsys,
                                                           declaration, needle):
    work = tmp_path / "work"
    (work / "deeper").mkdir(parents=True)
    sources = work / "sources.toml"
    sources.write_text(declaration, "utf-8")
    status, _, err = run_main(monkeypatch, capsys, "fetch", "--sources", str(sources),
                              "--cache-dir", str(work / "deeper" / "cache"))
    lines = err.strip().splitlines()
    assert status == 1 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert needle in lines[0] and "Traceback" not in err
    # Nothing created, inside the cache or out of it.
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "work", "work/deeper", "work/sources.toml"]
