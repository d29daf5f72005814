"""Table rows written in Python (ffsite/site/table_rows.py): the markup, escaped."""

from __future__ import annotations

from ffsite.site.table_rows import cell, table_rows
from ffsite.site.views import Cell, Column


def test_a_row_header_a_number_and_hostile_text():
    row = [Cell('<b>"m" & co</b>', href="models/a&b.html", header=True),
           Cell("0.50", 0.5, rank=(2, 1, 3), interval="0.40–0.60"),
           Cell("it's", css="hp2", title='a "title"', badge="judge", badge_title="<j>")]
    html = str(table_rows([row], [Column("m", "Model", numeric=False), Column("v", "V"),
                                  Column("t", "T")], None))
    assert html == (
        '<tr><th scope="row"><a href="models/a&amp;b.html">&lt;b&gt;&#34;m&#34; &amp; co'
        "&lt;/b&gt;</a></th>"
        '<td data-v="0.5" class="n">0.50 <span class="rank">#1–3</span>'
        '<span class="ci">0.40–0.60</span></td>'
        '<td class="hp2" title="a &#34;title&#34;">it&#39;s <span class="badge" '
        'title="&lt;j&gt;">judge</span></td></tr>\n')


def test_a_model_row_carries_its_facts_and_ids_break_after_underscores():
    class Facts:
        org, weights, year, datasets = "o1", "open", "2024", "d0 d2"

    html = str(table_rows([[Cell("gpt4_1106", href="../models/gpt4.html", header=True)]],
                          [Column("m", "Model", numeric=False)],
                          {"models/gpt4.html": Facts()}))
    assert html.startswith('<tr class="m" data-org="o1" data-weights="open" '
                           'data-year="2024" data-datasets="d0 d2"><th scope="row">')
    assert "gpt4_<wbr>1106" in html
    assert cell(Cell("–"), numeric=True) == '<td class="n">–</td>'
