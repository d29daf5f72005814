"""The section protocol (ffsite/site/sections.py): a provider added to the model pages'
list is all a new kind of data needs to appear on them, drawn by the default partial,
listed in the page's contents, its table published; work it shares between pages runs
once per build."""

from __future__ import annotations

import re

import pandas as pd
from site_fixture import REPO, write_content, write_tiny

from ffsite.site.build import build_site
from ffsite.site.context import SiteContext
from ffsite.site.pages import models
from ffsite.site.sections import Section, model_page
from ffsite.site.views import Cell, Column, Table


def test_a_registered_provider_is_all_a_new_section_needs(tmp_path, monkeypatch):
    prepared, made = [], []

    def poem_scores(ctx: SiteContext) -> dict[str, float]:  # shared by every model page
        prepared.append(len(ctx.slugs.models))
        return {"m1": 7.5}

    def poem_sections(ctx: SiteContext, model: str) -> list[Section]:
        score = ctx.prepared(poem_scores).get(model)
        if score is None:
            return []
        slug, page = model_page(ctx, model)
        download = ctx.output.data(f"models/{slug}/poems", pd.DataFrame(
            {"model": [model], "score": [score]}), f"{model}: poem score", page)
        table = Table("model-poems", "Poem score & rank", [
            Column("judge", "Judge", numeric=False), Column("score", "Score")],
            [[Cell("panel <b>", header=True), Cell("7.50", score)]], download)
        made.append(Section(id="poems", heading="Poem evaluation", summary="1 poem judged "
                            "by a panel", judged_by="a <panel>", datasets=("poems",),
                            tables=(table,), notes=("Scores are out of 10.",)))
        return made[-1:]

    monkeypatch.setattr(models, "MODEL_SECTIONS", [*models.MODEL_SECTIONS, poem_sections])
    write_tiny(tmp_path / "annotations")
    build_site(tmp_path / "annotations", tmp_path / "site",
               content=write_content(tmp_path / "content"), templates=REPO / "templates")

    assert prepared == [3]  # m1, m2 and R: prepared once, for all three pages
    assert [d.csv for s in made for d in s.downloads] == ["data/models/m1/poems.csv"]
    page = (tmp_path / "site" / "models" / "m1.html").read_text("utf-8")
    contents = page[page.index('<nav class="in-datasets"'):]
    contents = contents[:contents.index("</nav>")]
    assert '<li><a href="#poems">Poem evaluation</a>: 1 poem judged by a panel</li>' in contents
    section = page[page.index('<section class="model-section" id="poems"'):]
    section = section[:section.index("</section>")]
    assert '<h2 id="poems-h">Poem evaluation</h2>' in section
    assert "Judge: <strong>a &lt;panel&gt;</strong>." in section
    assert '<p class="note">Scores are out of 10.</p>' in section
    assert "Poem score &amp; rank" in section
    assert "panel &lt;b&gt;" in section and 'data-v="7.5"' in section
    assert 'href="../data/models/m1/poems.csv"' in section
    assert (tmp_path / "site" / "data" / "models" / "m1" / "poems.csv").read_text() == \
        "model,score\nm1,7.5\n"
    assert "<dt>Name in poems</dt><dd>m1</dd>" in page  # its dataset in the header
    # It comes last, after the sections the tiny set has (text statistics).
    ids = re.findall(r'<section class="model-section" id="([^"]+)"', page)
    assert ids == ["text-statistics", "poems"]
    other = (tmp_path / "site" / "models" / "m2.html").read_text("utf-8")
    assert 'id="poems"' not in other and "Poem evaluation" not in other
