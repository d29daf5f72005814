"""Charts drawn at build time (ffsite/site/drawings.py): the phone layout, the check that
keeps anything but a drawing out of a page, hostile names, the cache, determinism."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

import pandas as pd
import pytest

from ffsite.errors import FfsiteError
from ffsite.site import _draw_worker, charts, drawings

HOSTILE = '<script>alert("x")</script>" onload="alert(1)'


def bars(names: list[str]) -> dict:
    frame = pd.DataFrame({"name": names, "strength": [0.5, -0.25][:len(names)],
                          "strength_low": [0.4, -0.3][:len(names)],
                          "strength_high": [0.6, -0.2][:len(names)],
                          "relevance": 0.5, "valid_votes": 10, "num_votes": 20,
                          "finding": True})
    return charts.strength_bars(frame, "trait", "Two bars.")


def test_the_phone_layout_is_narrow_and_cuts_long_labels():
    spec = bars(["a trait with a very long name indeed, longer than a phone allows", "b"])
    narrow = drawings.layout(spec, drawings.NARROW)
    assert narrow["width"] == drawings.NARROW
    wide = drawings.layout(spec, drawings.WIDE)
    assert wide["width"] == drawings.WIDE
    assert spec["width"] == "container"  # the page's spec is left as it was
    svg = _draw_worker.render(drawings._spec_text(narrow), None)
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert any(label.endswith("…") and len(label) <= 19 for label in labels), labels
    root = ElementTree.fromstring(svg)
    assert float(root.get("width")) == drawings.NARROW


def test_a_heatmap_shrinks_its_cells_to_fit_a_phone():
    pairs = pd.DataFrame([{"trait_a": f"t{i}", "trait_b": f"t{j}", "cohens_kappa": 0.1,
                           "overlap": 0.5, "both_relevant": 3}
                          for i in range(30) for j in range(i + 1, 30)])
    spec = charts.agreement_heatmap(pairs, [f"t{i}" for i in range(30)], "Kappa.")
    narrow = drawings.layout(spec, drawings.NARROW)
    svg = _draw_worker.render(drawings._spec_text(narrow), None)
    assert float(ElementTree.fromstring(svg).get("width")) <= drawings.NARROW + 20
    assert narrow["layer"][1]["encoding"]["size"]["scale"]["range"][1] < (
        spec["layer"][1]["encoding"]["size"]["scale"]["range"][1])


@pytest.mark.parametrize("bad", [
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink">'
    '<path x:href="javascript:alert(1)"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><path fill="url(https://x.example/a)"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><text>unclosed</svg>',
])
def test_anything_but_a_drawing_is_refused(bad):
    with pytest.raises(FfsiteError):
        drawings.inline(bad, "c-")


def test_hostile_names_are_text_in_the_drawing():
    spec = drawings.layout(bars([HOSTILE, "b"]), drawings.WIDE)
    svg = str(drawings.inline(_draw_worker.render(drawings._spec_text(spec), None), "c-w-"))
    assert "<script" not in svg and "&lt;script&gt;" in svg
    root = ElementTree.fromstring(svg)  # still one well-formed drawing
    assert not [name for element in root.iter() for name in element.attrib
                if name.startswith("on")]
    assert {element.tag.split("}")[1] for element in root.iter()} <= {
        "svg", "g", "path", "text", "line", "rect", "defs", "linearGradient", "stop"}
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(t.startswith('<script>alert("x")') for t in texts)  # shown, not run


def test_inlining_merges_alike_marks_and_keeps_ids_apart():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
           '<defs><linearGradient id="g0"><stop offset="0"/></linearGradient></defs>'
           '<g class="mark-rect role-mark m"><path d="M1.234,2h3v4h-3Z" fill="red"/>'
           '<path d="M5,2h3v4h-3Z" fill="blue"/><path d="M9,2h3v4h-3Z" fill="red"/></g>'
           '<path fill="url(#g0)" d="M0,0h1"/></svg>')
    out = str(drawings.inline(svg, "chart-w-"))
    assert '<path d="M1.2,2h3v4h-3ZM9,2h3v4h-3Z" fill="red"/>' in out
    assert '<path d="M5,2h3v4h-3Z" fill="blue"/>' in out
    # Ids numbered per drawing, in order of appearance: the renderer's own numbers (which
    # count every drawing its process made) leave no trace.
    assert 'id="chart-w-0"' in out and "url(#chart-w-0)" in out
    assert str(drawings.inline(svg.replace("g0", "gradient_17"), "chart-w-")) == out
    opening = out[:out.index(">")]
    assert 'font-family="' in opening and 'aria-hidden="true"' in opening


def test_drawings_are_kept_and_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path))
    spec = drawings.layout(bars(["a", "b"]), drawings.WIDE)
    first = drawings.render_all([spec])
    assert len(list((tmp_path / "drawings").glob("*.svg"))) == 1

    def no_drawing(*args):
        raise AssertionError("drawn again although it was kept")

    monkeypatch.setattr(_draw_worker, "render", no_drawing)
    assert drawings.render_all([spec]) == first
    monkeypatch.undo()
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path / "fresh"))
    assert drawings.render_all([spec]) == first  # drawn again: the same bytes


def test_worker_processes_draw_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(drawings, "POOL_FROM", 2)  # start the workers at once
    spec = bars(["a", "b"])
    with drawings.in_background(workers=2) as background:
        drawings.request(spec)
        assert background is not None and background.pool is not None
        drawn = background.finish()
    assert len(drawn) == 2  # the wide and the narrow layout
    laid_out = [drawings.layout(spec, width) for width in (drawings.WIDE, drawings.NARROW)]
    monkeypatch.setenv("FFSITE_CACHE_DIR", str(tmp_path / "fresh"))
    assert sorted(drawn.values()) == sorted(drawings.render_all(laid_out))
