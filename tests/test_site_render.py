"""Safe HTML from data: responses (Markdown, sanitised), JSON in script elements, cells."""

from __future__ import annotations

import json
import os

import pytest

from ffsite.errors import FfsiteError
from ffsite.site import forked
from ffsite.site import render as rendering
from ffsite.site.render import heat_class, json_script, response_html, signed


def test_response_markdown_is_rendered_and_sanitised():
    html, cut = response_html("# Title\n\n**bold** <script>alert(1)</script>\n\n"
                              "[x](javascript:alert(1)) [y](https://example.org) [z](page.html)"
                              "\n\n![img](https://example.org/a.png)\n\n<b onclick=x>b</b>")
    assert not cut
    assert '<p class="md-h">Title</p>' in html  # no heading joins the page outline
    assert "<strong>bold</strong>" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script" not in html
    assert "javascript:" not in html.replace("[x](javascript:alert(1))", "")
    assert 'href="https://example.org"' in html and 'rel="noopener noreferrer nofollow"' in html
    assert 'href="page.html"' not in html  # a relative link would point into our site
    assert "<img" not in html
    assert "onclick" not in html.replace("&lt;b onclick=x&gt;", "")


def test_long_responses_are_cut():
    html, cut = response_html("word " * 5000, limit=100)
    assert cut and len(html) < 200


def test_json_script_cannot_close_its_element():
    value = {"name": "</script><script>alert(1)</script><!-- & \u2028"}
    text = json_script(value)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == value


def test_heat_classes_and_signs():
    assert [heat_class(v) for v in (0.0, 0.049, 0.05, -0.15, 0.3, -0.5, 0.99)] == [
        "h0", "h0", "hp1", "hn2", "hp3", "hn4", "hp4"]
    assert heat_class(0.9, finding=False) == "nf" and heat_class(float("nan")) == "nf"
    # A value that rounds to zero keeps its sign (a bound just below zero never reads as
    # above it); zero itself, negative zero too, is "+0.00".
    assert [signed(v) for v in (0.333, -0.001, -0.5, None, 0.0, -0.0, 0.001)] == [
        "+0.33", "-0.00", "-0.50", "–", "+0.00", "+0.00", "+0.00"]


def test_breakable_escapes_then_allows_a_break_after_underscores():
    from ffsite.site.render import breakable

    assert str(breakable("gpt4_1106</b>")) == "gpt4_<wbr>1106&lt;/b&gt;"
    assert str(breakable("a&b")) == "a&amp;b"


def test_render_all_gives_each_page_in_order_with_a_forked_half(tmp_path, monkeypatch):
    """Enough pages to fork: the same text as rendering one by one, in order; an error
    on a page of the child's half is this process's error."""
    (tmp_path / "page.html").write_text("<p>{{ n }}: {{ name }}</p>\n", "utf-8")
    env = rendering.environment(tmp_path)
    jobs = [("page.html", {"n": n, "name": f"<model {n}>"}) for n in range(150)]
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert len(jobs) >= forked.FORK_FROM
    pages = rendering.render_all(env, jobs)
    assert pages == [f"<p>{n}: &lt;model {n}&gt;</p>\n" for n in range(150)]
    jobs[101] = ("page.html", {"n": 101})  # odd: in the child's half; `name` missing
    with pytest.raises(FfsiteError, match="the page does not provide"):
        rendering.render_all(env, jobs)


def test_a_new_environment_reuses_compiled_templates_until_one_is_edited(tmp_path,
                                                                          monkeypatch):
    import jinja2

    (tmp_path / "page.html").write_text("first {{ n }}", "utf-8")
    compiled = []
    compile_source = jinja2.Environment.compile

    def counting(self, source, *args, **kwargs):
        compiled.append(source)
        return compile_source(self, source, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    assert rendering.render(rendering.environment(tmp_path), "page.html", {"n": 1}) == "first 1"
    assert rendering.render(rendering.environment(tmp_path), "page.html", {"n": 2}) == "first 2"
    assert compiled == ["first {{ n }}"]  # the second environment compiled nothing
    (tmp_path / "page.html").write_text("second {{ n }}", "utf-8")
    assert rendering.render(rendering.environment(tmp_path), "page.html", {"n": 3}) == "second 3"
    assert compiled == ["first {{ n }}", "second {{ n }}"]
