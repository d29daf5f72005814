"""The one function worker processes run to draw a chart: kept apart so a worker
imports vl-convert and nothing else of ffsite."""

from __future__ import annotations

import json

import vl_convert


def render(spec_json: str, vl_version: str | None) -> str:
    """The SVG of a Vega-Lite spec given as JSON text."""
    return vl_convert.vegalite_to_svg(json.loads(spec_json), vl_version=vl_version)
