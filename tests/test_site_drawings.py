"""Charts drawn at build time (ffsite/site/drawings.py, plot.py, plot_matrix.py): the
phone layout, axes and colours checked by hand, the check that keeps anything but a
drawing out of a page, hostile names, menus' choices, determinism."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

import pandas as pd
import pytest

from ffsite.errors import FfsiteError
from ffsite.site import charts, drawings
from ffsite.site.plot import nice_ticks, tick_label
from ffsite.site.plot_matrix import colour_scale, interpolate
from ffsite.site.plot_text import cut, escape, text_width

HOSTILE = '<script>alert("x")</script>" onload="alert(1)'
SVG = "{http://www.w3.org/2000/svg}"


def bars(names: list[str], strengths: list[float] | None = None) -> dict:
    strengths = strengths or [0.5, -0.25][:len(names)]
    frame = pd.DataFrame({"name": names, "strength": strengths,
                          "strength_low": [s - 0.1 for s in strengths],
                          "strength_high": [s + 0.1 for s in strengths],
                          "relevance": 0.5, "valid_votes": 10, "num_votes": 20,
                          "finding": True})
    return charts.strength_bars(frame, "trait", "Bars.")


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in ElementTree.fromstring(svg).iter(SVG + "text")]


def test_the_phone_layout_is_narrow_and_cuts_long_labels():
    spec = bars(["a trait with a long name, 34 letters", "b"])
    narrow = drawings.draw(spec, drawings.NARROW)
    assert float(ElementTree.fromstring(narrow).get("width")) == drawings.NARROW
    assert any(label.endswith("…") and len(label) <= 19 for label in texts(narrow))
    wide = drawings.draw(spec, drawings.WIDE)
    assert float(ElementTree.fromstring(wide).get("width")) == drawings.WIDE
    assert "a trait with a long name, 34 letters" in texts(wide)  # up to 37 letters fit


def test_the_strength_axis_runs_from_minus_one_to_one_in_fifths():
    labels = [t for t in texts(drawings.draw(bars(["a", "b"]), drawings.WIDE))
              if t not in ("a", "b", "strength")]
    assert labels == ["−1.0", "−0.8", "−0.6", "−0.4", "−0.2", "0.0", "0.2", "0.4", "0.6",
                      "0.8", "1.0"]  # one decimal for every tick, as d3 labels them


def test_the_last_tick_label_fits_in_the_drawing():
    frame = pd.DataFrame({"name": ["a", "b"], "value": [1100.0, 1380.0],
                          "low": [1050.0, 1330.0], "high": [1150.0, 1395.0]})
    svg = drawings.draw(charts.interval_dots(frame, "Elo", "Elo."), drawings.NARROW)
    shift = float(re.search(r'role-frame root"><g transform="translate\(([\d.]+),', svg)[1])
    plot = float(re.search(r'class="background" fill="none" d="M0,0h([\d.]+)', svg)[1])
    # "1,400" is 5 characters (556 + 278 + 3 x 556 thousandths of 12 px) centred on the
    # plot's right edge: half of it must end inside the 350 px drawing.
    half = (4 * 556 + 278) * 12 / 1000 / 2
    assert "1,400" in texts(svg) and shift + plot + half <= drawings.NARROW


def test_nice_ticks_and_their_labels_by_hand():
    # 2.15 / 6 = 0.36 a tick: rounded to 0.5, the domain widened to 5.0-7.5.
    assert nice_ticks(5.3, 7.45, 6) == (5.0, 7.5, [5.0, 5.5, 6.0, 6.5, 7.0, 7.5])
    low, high, ticks = nice_ticks(1012, 1388, 5)  # 75 a tick: rounded to 100
    assert (low, high, ticks) == (1000, 1400, [1000, 1100, 1200, 1300, 1400])
    assert nice_ticks(3.0, 3.0, 5)[:2] == (2.7, 3.3)  # one value: a little room round it
    assert [tick_label(v, 0.5) for v in (-0.5, 0.0, 1.5)] == ["−0.5", "0.0", "1.5"]
    assert tick_label(1200, 100) == "1,200" and tick_label(-1e-17, 0.2) == "0.0"


def test_text_widths_cuts_and_escapes():
    assert text_width("Hi") == pytest.approx((722 + 222) * 12 / 1000)
    assert text_width("模型") == 24  # wide characters: a whole em each
    assert cut("abcdef", 4) == "abc…" and cut("abc", 4) == "abc"
    assert escape('a<b>&"\x07c') == "a&lt;b&gt;&amp;&quot;c"  # no control character


def test_the_colour_ramp_and_its_log_scale():
    assert (interpolate(0), interpolate(0.5), interpolate(1)) == (
        "#67001f", "#f7f7f7", "#053061")
    assert interpolate(0.05) == "#8d0c25"  # halfway from #67001f to #b2182b
    place, labels = colour_scale({"log": True}, [0.01, 1.0, 4.0])
    assert (place(0.01), place(0.1), place(1.0), place(2.0), place(4.0)) == (
        pytest.approx(0), pytest.approx(0.25), 0.5, pytest.approx(0.75), pytest.approx(1))
    assert [text for _, text in labels] == ["0.01", "1.00", "4.00"]
    linear, labels = colour_scale({"domain": [-1, 1]}, [])
    assert (linear(-1), linear(0), linear(1)) == (0, 0.5, 1)
    assert [text for _, text in labels] == ["−1", "0", "1"]


def test_a_heatmap_shrinks_its_cells_to_fit_a_phone():
    pairs = pd.DataFrame([{"trait_a": f"t{i}", "trait_b": f"t{j}", "cohens_kappa": 0.1,
                           "overlap": 0.5, "both_relevant": 3}
                          for i in range(30) for j in range(i + 1, 30)])
    spec = charts.agreement_heatmap(pairs, [f"t{i}" for i in range(30)], "Kappa.")

    def cell(svg: str) -> int:
        cells = re.search(r"<g class=\"mark-rect role-mark\">(.*?)</g>", svg)[1]
        return int(re.search(r"h(\d+)v\1h-\1Z", cells)[1])

    narrow, wide = (drawings.draw(spec, w) for w in (drawings.NARROW, drawings.WIDE))
    assert float(ElementTree.fromstring(narrow).get("width")) <= drawings.NARROW
    assert cell(narrow) == (350 - 130 - 20) // 30 < cell(wide) == 16
    # Both halves of the matrix: 30 x 29 cells (the diagonal has no pair), both axes in
    # the given order.
    assert sum(d.count("Z") for d in re.findall(
        r'<g class="mark-rect role-mark">(.*?)</g>', wide)[0].split('d="')[1:]) == 870
    names = texts(wide)
    assert names[:30] == names[30:60] == [f"t{i}" for i in range(30)]
    # On the phone the labels are no taller than the 6 px cells, so rows do not overlap.
    assert 'font-size="6"' in narrow and 'font-size="12"' in wide


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
    svg = str(drawings.inline(drawings.draw(bars([HOSTILE, "b\x1b[31m"]), drawings.WIDE),
                              "c-w-"))
    assert "<script" not in svg and "&lt;script&gt;" in svg and "\x1b" not in svg
    root = ElementTree.fromstring(svg)  # still one well-formed drawing
    assert not [name for element in root.iter() for name in element.attrib
                if name.startswith("on")]
    assert {element.tag.split("}")[1] for element in root.iter()} <= {
        "svg", "g", "path", "text"}
    assert any(t.startswith('<script>alert("x")') for t in texts(svg))  # shown, not run


def test_marks_drawn_alike_are_one_path_and_ids_are_numbered_per_drawing():
    svg = drawings.draw(bars(["a", "b", "c"], [0.5, -0.25, 0.75]), drawings.WIDE)
    bars_group = re.search(r'<g class="mark-rect role-mark">(.*?)</g>', svg)[1]
    blue, red = (re.search(rf'd="([^"]*)" fill="{colour}"', bars_group)[1]
                 for colour in (charts.POSITIVE, charts.NEGATIVE))
    assert blue.count("Z") == 2 and red.count("Z") == 1
    matrix = drawings.draw(charts.trust_heatmap(pd.DataFrame(
        {"judge": ["a", "b"], "model": ["b", "a"], "trust": [1.0, 1.0],
         "relative": [2.0, 0.5]}), ["a", "b"], "Trust."), drawings.WIDE)
    out = str(drawings.inline(matrix, "chart-w-"))
    assert 'id="chart-w-0"' in out and "url(#chart-w-0)" in out and 'id="gradient"' not in out
    opening = out[:out.index(">")]
    assert 'font-family="' in opening and 'aria-hidden="true"' in opening


def test_every_menu_choice_is_drawn_with_only_its_rows():
    frame = pd.DataFrame({"key": ["x", "x", "y"], "name": ["a", "b", "a"],
                          "value": [3.0, 5.0, 1.0], "low": [2.0, 4.0, 0.5],
                          "high": [4.0, 6.0, 1.5]})
    spec = charts.selectable(frame, ["y", "x", "z"], ["Y", "X", "Z"], "Measure", "score",
                             "Scores.", interval=True)
    found = drawings.choices(spec)
    assert [values for values, _ in found] == [("y",), ("x",)]  # z has no rows
    assert [row["name"] for row in found[1][1]["data"]["values"]] == ["a", "b"]
    names = [t for t in texts(drawings.draw(found[1][1], drawings.WIDE)) if t in "ab"]
    assert names == ["b", "a"]  # highest first


def test_the_same_chart_gives_the_same_bytes():
    spec = bars(["a", "b"])
    assert drawings.draw(spec, drawings.WIDE) == drawings.draw(bars(["a", "b"]),
                                                               drawings.WIDE)


def test_many_charts_are_drawn_alike_by_one_process_or_two(monkeypatch):
    import os

    from ffsite.site import forked
    from ffsite.site.views import Chart

    def made() -> list[Chart]:
        frame = pd.DataFrame({"key": ["x", "x", "y"], "name": ["a", "b", "a"],
                              "value": [3.0, 5.0, 1.0], "low": [2.0, 4.0, 0.5],
                              "high": [4.0, 6.0, 1.5]})
        menu = charts.selectable(frame, ["y", "x"], ["Y", "X"], "Measure", "score",
                                 "Scores.", interval=True)
        return [Chart(f"c{n}", menu if n % 3 else bars([f"m{n}", HOSTILE]), "A chart.")
                for n in range(forked.FORK_FROM + 7)]

    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    alone = made()
    count = drawings.draw_charts(alone)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    shared = made()
    assert drawings.draw_charts(iter(shared)) == count
    assert count == sum(2 * (2 if n % 3 else 1) for n in range(len(alone)))
    for one, other in zip(alone, shared, strict=True):
        assert other.choices == one.choices and other.drawing == one.drawing
        assert other.drawing == one.choices[0][1] and set(one.drawing) == {"wide", "narrow"}
    assert [values for values, _ in shared[1].choices] == [("y",), ("x",)]
