"""A template edit re-rendered in place (ffsite/site/rerender.py): only the pages using the
changed template are written again, and the site is byte for byte the one a full build
with the edited templates writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import tree as files
from site_fixture import REPO, write_content, write_tiny, write_tiny_texts

from ffsite.errors import FfsiteError
from ffsite.site.build import build_site
from ffsite.site.context import ResultsCache
from ffsite.site.render import environment
from ffsite.site.rerender import rerender, users_of


@pytest.fixture
def inputs(tmp_path):
    """The tiny set, its texts and content, and a copy of the templates to edit."""
    annotations, base = tmp_path / "annotations", tmp_path / "base"
    write_tiny(annotations)
    write_tiny_texts(base)
    content = write_content(tmp_path / "content")
    templates = tmp_path / "templates"
    shutil.copytree(REPO / "templates", templates)
    return {"annotations": annotations, "base_data": base, "content": content,
            "templates": templates}


def build(inputs: dict, out: Path, cache: ResultsCache | None = None):
    return build_site(inputs["annotations"], out, content=inputs["content"],
                      templates=inputs["templates"], base_data=inputs["base_data"],
                      cache=cache)


def test_a_page_template_edit_rewrites_its_pages_only_and_matches_a_full_build(inputs,
                                                                              tmp_path):
    cache = ResultsCache()
    out = tmp_path / "site"
    build(inputs, out, cache)
    before = files(out)
    trait_page = inputs["templates"] / "trait.html"
    trait_page.write_text(trait_page.read_text("utf-8").replace(
        "{% block main %}", "{% block main %}<p>edited here</p>", 1), "utf-8")
    rerender(cache.site)
    after = files(out)
    changed = sorted(name for name in after if after[name] != before.get(name))
    assert changed and all(name.startswith("traits/") or name == ".ffsite-inputs"
                           for name in changed), changed
    assert all(b"edited here" in after[name] for name in changed if name.endswith(".html"))
    assert after == files(build(inputs, tmp_path / "full").out)  # inputs record included


def test_an_edit_saved_while_the_build_writes_is_re_rendered(inputs, tmp_path, monkeypatch):
    # `serve --watch` under load: the edit lands after the pages were rendered and the
    # site swapped in, before the build returns.  The kept record must not claim it.
    from ffsite.site import swap

    trait_page = inputs["templates"] / "trait.html"
    swap_in = swap.swap_in

    def swap_then_edit(staging, out):
        swap_in(staging, out)
        trait_page.write_text(trait_page.read_text("utf-8").replace(
            "{% block main %}", "{% block main %}<p>saved late</p>", 1), "utf-8")

    monkeypatch.setattr(swap, "swap_in", swap_then_edit)
    cache = ResultsCache()
    out = tmp_path / "site"
    build(inputs, out, cache)
    page = next((out / "traits").glob("*.html"))
    assert b"saved late" not in page.read_bytes()
    monkeypatch.setattr(swap, "swap_in", swap_in)
    rerender(cache.site)
    assert b"saved late" in page.read_bytes()


def test_a_stylesheet_edit_renames_the_asset_on_every_page(inputs, tmp_path):
    cache = ResultsCache()
    out = tmp_path / "site"
    build(inputs, out, cache)
    css = inputs["templates"] / "static" / "site.css"
    css.write_text(css.read_text("utf-8") + "\n/* edited */\n", "utf-8")
    rerender(cache.site)
    after = files(out)
    assert after == files(build(inputs, tmp_path / "full").out)
    assert not [name for name in after if name.startswith("assets/site-")
                and b"/* edited */" not in after[name] and name.endswith(".css")]


def test_a_template_error_leaves_the_site_as_it_was(inputs, tmp_path):
    cache = ResultsCache()
    out = tmp_path / "site"
    build(inputs, out, cache)
    before = files(out)
    base = inputs["templates"] / "base.html"
    base.write_text(base.read_text("utf-8") + "{% if %}", "utf-8")
    with pytest.raises(FfsiteError, match="base.html"):
        rerender(cache.site)
    assert files(out) == before


def test_users_of_a_template_follow_extends_and_imports():
    env = environment(REPO / "templates")
    users = users_of(env, {"macros.html"})
    assert {"macros.html", "trait.html", "home.html", "sections/tables.html"} <= users
    assert "base.html" not in users  # the base does not import the macros
    assert users_of(env, {"trait.html"}) == {"trait.html"}
    assert "model.html" in users_of(env, {"base.html"})


def test_a_section_template_edit_rewrites_the_pages_that_include_it(inputs, tmp_path):
    cache = ResultsCache()
    out = tmp_path / "site"
    build(inputs, out, cache)
    before = files(out)
    section = inputs["templates"] / "sections" / "versus_reference.html"
    section.write_text("<p>section edited</p>\n" + section.read_text("utf-8"), "utf-8")
    rerender(cache.site)
    after = files(out)
    changed = {name for name in after if after[name] != before.get(name)}
    assert {"models/m1.html", "models/m2.html"} <= changed
    assert not [name for name in changed if name.startswith("traits/")]
    assert after == files(build(inputs, tmp_path / "full").out)
