"""Turning values into safe HTML: the Jinja environment, Markdown, numbers, JSON.

Jinja escapes every value (autoescape on); the only `Markup` we create comes from a
sanitiser (nh3), from `json_script`, which escapes what could end a <script> element,
or from `breakable`, which adds <wbr> to text it has escaped.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jinja2
import markdown
import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from ffsite.errors import FfsiteError, ParameterError
from ffsite.site.forked import in_halves

# Thresholds on |strength| for the colour steps of heat cells (5 steps per side).
HEAT_STEPS = (0.05, 0.15, 0.3, 0.5)
NOT_ZERO = HEAT_STEPS[0]  # a smaller |strength| is "about zero": not listed as exhibited
RESPONSE_LIMIT = 8000  # characters of a response shown on an example

# Images would load from other hosts; relative links would point into our own site.
_RESPONSE_TAGS = set(nh3.ALLOWED_TAGS) - {"img", "map", "area"}
_RESPONSE_MD = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


class _CompiledTemplates(jinja2.BytecodeCache):
    """Every template this process compiled, by name and source checksum (Jinja checks
    the checksum, so an edited template compiles again): a new environment, such as
    each re-render by `serve --watch` or each build in the tests, skips parsing and
    compiling the unchanged ones (about 0.1 s a template)."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self._code:
            bucket.bytecode_from_string(self._code[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _CompiledTemplates()  # all environments share it: they have the same options


def environment(templates_dir: Path) -> jinja2.Environment:
    if not templates_dir.is_dir():
        raise ParameterError(f"{templates_dir}: no such templates folder; run from the "
                             "repository root or pass {templates} DIR", "templates")
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir)),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                             bytecode_cache=_COMPILED)
    env.filters.update(signed=signed, number=number, percent=percent, heat=heat_class,
                       count=count, breakable=breakable)
    from ffsite.site.table_rows import table_cell, table_rows  # (it uses `breakable`)

    env.globals.update(table_rows=table_rows, table_cell=table_cell)
    return env


def render(env: jinja2.Environment, template: str, context: dict[str, Any]) -> str:
    """Render a template; template mistakes become one-line errors naming the file."""
    try:
        return env.get_template(template).render(**context)
    except jinja2.TemplateNotFound as exc:
        raise ParameterError(f"template '{exc.name}' not found in the templates folder; "
                             "restore it or pass {templates} DIR", "templates") from None
    except jinja2.TemplateSyntaxError as exc:
        raise FfsiteError(f"{exc.filename or exc.name}: line {exc.lineno}: {exc.message}; "
                          "fix the template") from None
    except jinja2.UndefinedError as exc:
        raise FfsiteError(f"template '{template}': {exc.message}; the template uses a value "
                          "the page does not provide") from None


def render_all(env: jinja2.Environment, jobs: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """`render` of each (template, context), in order; with many pages a forked child
    renders every second one (ffsite.site.forked: the same env and contexts, the same
    text)."""
    return in_halves(jobs, lambda job: render(env, *job))


def breakable(text: Any) -> Markup:
    """`text`, escaped, free to wrap after an underscore (<wbr>): a model id
    such as gpt4_1106_preview_verbose would otherwise set a table's first column to its
    whole width, most of a phone's screen.  The words between stay whole."""
    escaped = str(escape(text))
    return Markup(escaped.replace("_", "_<wbr>"))


# ------------------------------------------------------------------------- numbers

def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def signed(value: Any, digits: int = 2) -> str:
    """+0.12 / -0.12 (a sign always, so the direction reads at a glance); a value that
    rounds to zero keeps its own sign ("-0.00" for -0.002), and zero itself is "+0.00"."""
    if _missing(value):
        return "–"
    value = float(value)
    return f"{value + 0.0 if value == 0 else value:+.{digits}f}"  # (+ 0.0: -0.0 is 0)


def number(value: Any, digits: int = 2) -> str:
    return "–" if _missing(value) else f"{float(value):.{digits}f}"


def percent(value: Any, digits: int = 1) -> str:
    return "–" if _missing(value) else f"{float(value):.{digits}f}%"


def count(value: Any) -> str:
    return "–" if _missing(value) else f"{int(value):,}"


def heat_class(value: Any, finding: bool = True) -> str:
    """CSS class of a strength cell: h0 (about zero), hp1..hp4 / hn1..hn4, nf (too few
    votes to count as a finding: shown without colour)."""
    if _missing(value) or not finding:
        return "nf"
    magnitude = abs(float(value))
    level = sum(magnitude >= step for step in HEAT_STEPS)
    if level == 0:
        return "h0"
    return f"hp{level}" if value > 0 else f"hn{level}"


# ------------------------------------------------------------------------ Markdown

def content_markdown(path: Path) -> Markup:
    """A content page (ours, but sanitised all the same)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FfsiteError(f"{path}: cannot read ({exc}); restore the content file") from None
    html = markdown.markdown(text, extensions=["tables", "fenced_code", "attr_list"],
                             output_format="html")
    # Headings may carry an id ("## Ranks {#ranks}"), so other pages can link to them.
    allowed = {**nh3.ALLOWED_ATTRIBUTES, "h2": {"id"}, "h3": {"id"}}
    return Markup(nh3.clean(html, attributes=allowed))


def response_html(text: str, limit: int = RESPONSE_LIMIT) -> tuple[Markup, bool]:
    """A response rendered from Markdown and sanitised; True when it was cut at `limit`."""
    cut = len(text) > limit
    if cut:
        text = text[:limit]
    tokens = _RESPONSE_MD.parse(text)
    for token in tokens:
        # A response's headings must not take part in the page's heading outline.
        if token.type in ("heading_open", "heading_close"):
            token.tag = "p"
            token.attrs = {"class": "md-h"}
    html = _RESPONSE_MD.renderer.render(tokens, _RESPONSE_MD.options, {})
    clean = nh3.clean(html, tags=_RESPONSE_TAGS, url_relative="deny",
                      allowed_classes={"p": {"md-h"}}, link_rel="noopener noreferrer nofollow")
    return Markup(clean), cut


def json_script(value: Any) -> Markup:
    """JSON for a <script type="application/json"> element: nothing in it can close the
    element or start markup, whatever the data holds."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      default=_plain)
    for raw, escaped in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return Markup(text)


def _plain(value: Any) -> Any:
    """numpy scalars to Python (NaN to null)."""
    if hasattr(value, "item"):
        value = value.item()
        return None if isinstance(value, float) and math.isnan(value) else value
    raise TypeError(f"cannot serialise {type(value).__name__}")
