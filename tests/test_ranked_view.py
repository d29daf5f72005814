"""The ranked default view and uncertainty in view, on the default site: ranks and
signal recomputed here from the published CSV with plain loops, the mirror trait shown
once, intervals printed in cells, the compare page's paired differences; and in
Chromium at phone and desktop widths, what a reader sees without hovering."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

PHONE, DESKTOP = 390, 1440
ABOUT_ZERO = 0.05  # the strength the site calls "about zero" (render.NOT_ZERO)


def _traits(default_site) -> pd.DataFrame:
    return pd.read_csv(default_site / "data" / "model-traits.csv")


def _place_by_hand(values: list[float], i: int, top: bool) -> int:
    """1 + how many others have a strictly higher (lower) value, counted one by one."""
    return 1 + sum(1 for v in values if (v > values[i] if top else v < values[i]))


def _ranges_by_simulation(values: list[float], low: list[float], high: list[float],
                          draws: int = 20_000, seed: int = 123) -> list[tuple[int, int]]:
    """Each model's 95% rank range (highest first), worked out independently of the
    site: many draws of each strength from its interval (a normal each side, the bound
    at 1.96 sd), ranked one draw at a time, the 2.5% and 97.5% points, the model's own
    place added (each range is the model's own)."""
    rng = np.random.default_rng(seed)
    v, lo, hi = (np.array(x, float) for x in (values, low, high))
    z = rng.standard_normal((draws, len(v)))
    drawn = v + z * np.where(z < 0, (v - lo) / 1.96, (hi - v) / 1.96)
    ranks = 1 + (drawn[:, None, :] > drawn[:, :, None]).sum(axis=2)
    found = []
    for i in range(len(v)):
        place = _place_by_hand(values, i, top=True)
        own = np.sort(ranks[:, i])
        found.append((min(int(own[int(np.ceil(0.025 * draws)) - 1]), place),
                      max(int(own[int(np.ceil(0.975 * draws)) - 1]), place)))
    return found


def _signal_by_hand(low: list[float], high: list[float]) -> bool:
    return any(lo > ABOUT_ZERO or hi < -ABOUT_ZERO for lo, hi in zip(low, high, strict=True))


def _home(default_site) -> str:
    return (default_site / "index.html").read_text("utf-8")


def test_mirror_trait_shown_once_and_said_so(default_site):
    traits = _traits(default_site)
    wide = traits.pivot(index="model", columns="trait", values="strength")
    # The data: "concise" is exactly minus "verbose" for every model.
    assert np.abs(wide["is more concise"] + wide["is more verbose"]).max() < 1e-12
    html = _home(default_site)
    board = html[html.index('id="leaderboard"'):]
    head = board[:board.index("</thead>")]
    assert ">is more verbose<" in head and ">is more concise<" not in head
    note = board[board.index("</table>"):][:1500]
    assert "“is more concise” is the mirror image of “is more verbose”" in note


def test_glance_cards_show_places_and_rank_ranges(default_site):
    traits = _traits(default_site)
    findings = traits[traits["finding"]]
    html = _home(default_site)
    section = html[html.index('id="text-glances"'):]
    section = section[:section.index('<p class="note">')]
    cards = re.findall(r'<article class="glance"[^>]*>\s*<h4><a href="[^"]+">([^<]+)</a></h4>(.*?)'
                       r'</article>', section, re.S)
    assert len(cards) >= 5
    for label, body in cards:
        own = findings[findings["trait"] == label].sort_values(
            ["strength", "model"], ascending=[False, True])
        values = own["strength"].tolist()
        low, high = own["strength_low"].tolist(), own["strength_high"].tolist()
        assert _signal_by_hand(low, high), label
        simulated = _ranges_by_simulation(values, low, high)
        most, least = body.split("Least")
        # (a model by its page: the cards name models by their display names)
        listed = re.findall(r'<span class="rank">#(\d+)(?: \((\d+)–(\d+)\))?</span> '
                            r'<a href="models/([^"]+)\.html">[^<]+</a> '
                            r'<span class="num">([^<]+)</span> '
                            r'<span class="ci-inline">\(([^)]+)\)</span>', most)
        assert [m for *_, m, _, _ in listed] == own["model"].head(3).tolist(), label
        models = own["model"].tolist()
        for rank, best, worst, model, value, interval in listed:
            i = models.index(model)
            place = _place_by_hand(values, i, top=True)
            assert int(rank) == place, (label, model)
            assert value == f"{values[i]:+.2f}"
            assert interval == f"{low[i]:+.2f} to {high[i]:+.2f}"
            best, worst = (int(best), int(worst)) if best else (place, place)
            assert best <= place <= worst
            # The same draws made here (another seed, 20 times as many) give a range
            # within one place at each end.
            assert abs(best - simulated[i][0]) <= 1 and abs(worst - simulated[i][1]) <= 1, (
                label, model, (best, worst), simulated[i])
        # How many could be first: the models whose range reaches 1 (within one model).
        tied = re.search(r"tied: (\d+) of (\d+) could be first|only one of (\d+)", most)
        count = int(tied[1]) if tied[1] else 1
        assert int(tied[2] or tied[3]) == len(models)
        assert abs(count - sum(1 for r in simulated if r[0] == 1)) <= 1, label
        bottom = re.findall(r'<span class="rank">#(\d+)[^<]*</span> '
                            r'<a href="models/([^"]+)\.html">', least)
        assert [m for _, m in bottom] == models[::-1][:3], label
        for rank, model in bottom:
            assert int(rank) == _place_by_hand(values, models.index(model), top=False)


def test_traits_without_signal_rank_nobody(default_site):
    traits = _traits(default_site)
    findings = traits[traits["finding"]]
    quiet = sorted(label for label, own in findings.groupby("trait")
                   if not _signal_by_hand(own["strength_low"].tolist(),
                                          own["strength_high"].tolist()))
    # The four near-zero columns of the issue: three are quiet; one model really does
    # use more emojis (its interval lies above +0.05).
    assert quiet == ["ends with a follow-up question",
                     "includes more references to other sources",
                     "uses more mathematical symbols and notation"]
    html = _home(default_site)
    card = re.search(r'<article class="glance no-signal">(.*?)</article>', html, re.S).group(1)
    assert sorted(re.findall(r'<li><a href="[^"]+">([^<]+)</a></li>', card)) == quiet
    # No cell of a quiet column carries a rank.
    board = html[html.index('id="leaderboard"'):html.index("</table>", html.index(
        'id="leaderboard"'))]
    keys = re.findall(r'<th scope="col" data-key="([^"]+)"', board)
    labels = dict(zip(traits["trait_id"], traits["trait"], strict=False))
    rows = re.findall(r"<tr[^>]*><th scope=\"row\"[^>]*>(.*?)</tr>", board, re.S)
    assert rows
    for row in rows:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        for key, cell in zip(keys[1:], cells, strict=True):
            if labels.get(key) in quiet:
                assert 'class="rank"' not in cell


def test_trait_pages_rank_elo_by_its_own_intervals(default_site):
    """A trait whose strengths show no signal on the leaderboard ("No signal" card) may
    still be told apart by its Elo ratings: the Elo table ranks by the Elo intervals (as
    the model pages do) and says that the strengths do not separate the models."""
    html = _home(default_site)
    card = re.search(r'<article class="glance no-signal">(.*?)</article>', html, re.S).group(1)
    quiet = re.findall(r'<li><a href="([^"]+)">', card)
    text = html[html.index('id="text-glances"'):]
    loud = re.findall(r'<article class="glance"[^>]*>\s*<h4><a href="([^"]+)">', text)
    assert quiet and loud
    for href, ranked in [(h, False) for h in quiet] + [(loud[0], True)]:
        page = (default_site / href).read_text("utf-8")
        table = page[page.index('id="elo"'):]
        table, after = table[:table.index("</table>")], table[table.index("</table>"):]
        ranks = [re.findall(r"<td[^>]*>([^<]*)", row)[2]
                 for row in re.findall(r"<tr[^>]*><th scope=\"row\"[^>]*>(.*?)</tr>", table, re.S)]
        assert ranks, href
        if ranked:
            assert "1 of " + str(len(ranks)) in ranks and all(
                re.fullmatch(r"\d+ of \d+", r) for r in ranks), href
        else:
            ratings = pd.read_csv(default_site / "data" / "traits" / href.removeprefix(
                "traits/").removesuffix(".html") / "ratings.csv")
            disjoint = bool((ratings["ci_low"].to_numpy()[:, None]
                             > ratings["ci_high"].to_numpy()[None, :]).any())
            if disjoint:
                assert all(re.fullmatch(r"\d+ of \d+", r) for r in ranks), href
                assert "The strengths above tell no model apart" in after[:1500], href
            else:
                assert set(ranks) == {"–"}, href


def test_leaderboard_cells_print_interval_and_rank(default_site):
    traits = _traits(default_site)
    html = _home(default_site)
    board = html[html.index('id="leaderboard"'):html.index("</table>", html.index(
        'id="leaderboard"'))]
    row = re.search(r'<a href="models/claude-2.html">claude-2</a></th>(.*?)</tr>', board,
                    re.S).group(1)
    verbose = traits[traits["trait"] == "is more verbose"].reset_index(drop=True)
    verbose = verbose[verbose["finding"]].reset_index(drop=True)
    i = verbose.index[verbose["model"] == "claude-2"][0]
    mine = verbose.loc[i]
    found = re.search(rf'{mine["strength"]:+.2f} <span class="rank">#(\d+)(?:–(\d+))?'
                      rf'</span><span class="ci">{mine["strength_low"]:+.2f} to '
                      rf'{mine["strength_high"]:+.2f}</span>', row.replace("+", "+"))
    assert found, row[:400]
    place = _place_by_hand(verbose["strength"].tolist(), i, top=True)
    best, worst = int(found[1]), int(found[2] or found[1])
    assert best <= place <= worst
    # Every numeric trait cell of the table shows an interval line.
    cells = re.findall(r'<td class="h[pn0-9]+"[^>]*>(.*?)</td>', board)
    assert cells and all('<span class="ci">' in c for c in cells)


def test_home_stays_light(default_site):
    assert (default_site / "index.html").stat().st_size < 290_000


def _compare_index(default_site) -> dict:
    html = (default_site / "compare.html").read_text("utf-8")
    found = re.search(r'<script type="application/json" id="compare-index">(.*?)</script>',
                      html, re.S).group(1)
    return json.loads(found)


def _text_section(default_site) -> tuple[dict, dict]:
    """The compare page's text-statistics section: its index entry and its numbers, with
    its models' ids in `models`."""
    index = _compare_index(default_site)
    (entry,) = [s for s in index["sections"] if s["unit"] == "strength"]
    data = json.loads((default_site / entry["file"]).read_text("utf-8"))
    data["models"] = [index["models"][m] for m in entry["models"]]
    data["labels"] = [label for label, _ in data["traits"]]
    return entry, data


def test_compare_opens_on_a_pair_sharing_the_most_datasets(default_site):
    index = _compare_index(default_site)
    shared: dict[tuple[int, int], int] = {}
    for section in index["sections"]:
        members = section["models"]
        for a in members:
            for b in members:
                if a < b:
                    shared[(a, b)] = shared.get((a, b), 0) + 1
    most = max(shared.values())
    pair = tuple(sorted((index["models"].index(index["first"]),
                         index["models"].index(index["second"]))))
    assert shared[pair] == most
    html = (default_site / "compare.html").read_text("utf-8")
    chosen = re.findall(r'<option value="([^"]+)" selected[ >]', html)
    assert tuple(chosen) == (index["first"], index["second"])
    _, data = _text_section(default_site)
    assert "is more concise" not in data["labels"]


def test_compare_halfwidths_match_a_pandas_recount(default_site):
    """The paired half-width for one pair, recounted from the annotations with pandas:
    per prompt, the two models' residuals (s - strength) / N, then 1.96 * sqrt(C/(C-1)
    * sum of squared differences + each model's shortfall from its Jeffreys floor)."""
    from ffsite.format import find_annotation_files, read_annotations

    _, data = _text_section(default_site)
    first, second = "claude-2", "gpt4_gamed"
    trait = "has more structured formatting"
    k = data["labels"].index(trait)
    annotations = read_annotations(find_annotation_files(["annotations/alpaca_eval"]))
    votes = annotations.votes.merge(annotations.annotators, left_on="annotator",
                                    right_index=True)
    votes = votes[(votes["role"] == "trait")]
    wording = "Select the response that " + trait
    votes = votes[votes["trait"] == wording]
    comparisons = annotations.comparisons.reset_index(drop=True)
    rows = []
    for model in (first, second):
        for side, other in (("a", "b"), ("b", "a")):
            mine = comparisons[(comparisons[f"model_{side}"] == model)
                               & (comparisons[f"model_{other}"] == "gpt4_1106_preview")]
            for index, prompt in zip(mine.index, mine["prompt_id"], strict=True):
                rows.append({"model": model, "prompt": prompt, "comparison": index,
                             "side": 1 if side == "a" else 2})
    frame = pd.DataFrame(rows)
    code = votes.groupby("comparison")["vote"].first()
    frame["code"] = frame["comparison"].map(code).fillna(0).astype(int)
    frame["s"] = np.where(frame["code"].isin([1, 2]),
                          np.where(frame["code"] == frame["side"], 1.0, -1.0), 0.0)
    n = frame.groupby("model")["s"].transform("size")
    frame["r"] = (frame["s"] - frame.groupby("model")["s"].transform("mean")) / n
    per_prompt = frame.pivot_table(index="prompt", columns="model", values="r",
                                   aggfunc="sum", fill_value=0.0)
    clusters = per_prompt.shape[0]
    factor = clusters / (clusters - 1)
    variance = factor * ((per_prompt[first] - per_prompt[second]) ** 2).sum()
    # Each model's own variance is floored at the one its Jeffreys interval implies.
    published = _traits(default_site)
    for model in (first, second):
        row = published[(published["model"] == model) & (published["trait"] == trait)]
        floor = ((row["strength_high"].iloc[0] - row["strength_low"].iloc[0]) / 3.919928) ** 2
        variance += max(0.0, floor - factor * (per_prompt[model] ** 2).sum())
    expected = 1.959964 * np.sqrt(variance)
    models = data["models"]
    i, j = sorted((models.index(first), models.index(second)))
    index = i * (2 * len(models) - i - 1) // 2 + (j - i - 1)
    assert unpacked_halfwidths(data)[k][index] / data["scale"] == pytest.approx(
        expected, abs=0.0011)
    # Sanity: a strength difference this large is surely not zero.
    a, b = models.index(first), models.index(second)
    assert abs(data["value"][a][k] - data["value"][b][k]) > expected


def test_win_rates_list_the_models_the_judge_did_not_rate(default_site):
    rates = pd.read_csv(default_site / "data" / "datasets" / "alpaca_eval" / "win-rates.csv")
    models = pd.read_csv(default_site / "data" / "models.csv")
    alpaca = set(pd.read_csv(default_site / "data" / "model-traits.csv")["model"])
    assert (rates["win_rate_low"] <= rates["win_rate"]).all()
    assert (rates["win_rate"] <= rates["win_rate_high"]).all()
    html = (default_site / "datasets" / "alpaca_eval.html").read_text("utf-8")
    note = re.search(r'id="win-rates-absent">(.*?)</p>', html, re.S).group(1)
    absent = set(note.split(": ", 1)[1].rstrip(".").split(", "))
    assert absent == (alpaca & set(models["model"])) - set(rates["model"])
    assert f"{len(absent)} of the {len(absent) + len(rates)} models" in note


def test_index_intervals_never_print_zero_width(default_site):
    html = (default_site / "ratings.html").read_text("utf-8")
    table = html[html.index('id="indices"'):html.index("</table>", html.index('id="indices"'))]
    intervals = re.findall(r'<span class="ci">([^<]+)</span>', table)
    assert intervals
    for text in intervals:
        if "–" in text:
            low, high = text.split("–")
            assert low != high, text
        else:
            assert text in ("fixed reference", "same at its bounds")
    assert "fixed reference" in intervals  # the reference model's row
    # Negative Elo is explained where it appears.
    assert "a rating or bound below 0 is no error" in html


# ------------------------------------------------------------------------ in Chromium

@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_ranked_summary_and_intervals_in_view(chromium, default_root, width):
    from browser import Watch, open_page, photograph

    context = chromium.new_context(viewport={"width": width, "height": 900},
                                   has_touch=width == PHONE)
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        open_page(page, default_root + "index.html")
        facts = page.evaluate("""() => {
          const seen = e => { const r = e.getBoundingClientRect();
                              return r.width > 0 && r.height > 0; };
          const cards = [...document.querySelectorAll('#text-glances .glance')];
          const cells = [...document.querySelectorAll('#leaderboard tbody td[data-v]')]
              .slice(1, 40);
          return {
            cards: cards.length,
            ranked: cards.filter(c => c.querySelector('.rank')
                                      && seen(c.querySelector('.rank'))).length,
            quiet: cards.filter(c => c.classList.contains('no-signal')).map(c => c.textContent),
            cellText: cells.map(c => c.textContent),
            ciSeen: [...document.querySelectorAll('#leaderboard tbody .ci')].slice(0, 40)
                .every(seen),
            headlineBars: document.querySelectorAll('#headline svg g.role-mark').length,
          };
        }""")
        assert watch.take() == []
        assert facts["cards"] >= 6 and facts["ranked"] == facts["cards"] - 1
        assert len(facts["quiet"]) == 1 and "No signal" in facts["quiet"][0]
        # The interval is part of the cell's text: "+0.54 #1+0.49 to +0.58" style.
        assert all(re.search(r"[+-]\d\.\d\d.*[+-]\d\.\d\d to [+-]\d\.\d\d", t)
                   for t in facts["cellText"] if t.count(".") >= 2)
        assert sum(" to " in t for t in facts["cellText"]) >= 30
        assert facts["ciSeen"]
        assert facts["headlineBars"] >= 2  # rules (error bars) and dots
        photograph(page.locator("#text-glances"), f"home-ranked-{width}.png")
    finally:
        context.close()


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
def test_compare_marks_differences_distinguishable_from_zero(chromium, default_root, width):
    from browser import Watch, open_page, photograph

    context = chromium.new_context(viewport={"width": width, "height": 900})
    watch = Watch(default_root).attach(context)
    page = context.new_page()
    try:
        # Two models that differ a lot on formatting, little on follow-up questions.
        open_page(page, default_root + "compare.html?a=claude-2&b=gpt4_gamed")
        page.wait_for_function("() => document.querySelectorAll('#compare-text tbody tr')"
                               ".length > 0", timeout=15_000)
        rows = page.evaluate("""() => [...document.querySelectorAll('#compare-text tbody tr')]
            .map(tr => { const v = tr.cells[1].querySelector('.verdict');
                         const r = v && v.getBoundingClientRect();
                         return {trait: tr.cells[0].textContent,
                                 diff: tr.cells[1].textContent,
                                 a: tr.cells[2].textContent, b: tr.cells[3].textContent,
                                 verdict: v && v.textContent,
                                 // laid out, and inside the screen without scrolling sideways
                                 seen: r !== null && r.height > 0 && r.left >= 0
                                       && r.right <= window.innerWidth}; })
        """)
        data = page.evaluate("""async () => {
            const index = JSON.parse(document.getElementById('compare-index').textContent);
            const entry = index.sections.find(s => s.unit === 'strength');
            const data = await (await fetch(entry.file)).json();
            data.models = entry.models.map(m => index.models[m]);
            return data; }""")
        assert watch.take() == []
        labels = [label for label, _ in data["traits"]]
        assert len(rows) == len(labels)
        models = data["models"]
        a, b = models.index("claude-2"), models.index("gpt4_gamed")
        i, j = sorted((a, b))
        index = i * (2 * len(models) - i - 1) // 2 + (j - i - 1)
        for row in rows:
            k = labels.index(row["trait"])
            difference = data["value"][a][k] - data["value"][b][k]
            half = unpacked_halfwidths(data)[k][index] / data["scale"]
            sure = difference - half > 0 or difference + half < 0
            assert row["seen"]
            assert row["verdict"] == ("distinguishable from 0" if sure
                                      else "not distinguishable from 0"), row
            assert " to " in row["a"] and " to " in row["b"] and " to " in row["diff"]
        verdicts = {row["verdict"] for row in rows}
        assert verdicts == {"distinguishable from 0", "not distinguishable from 0"}
        photograph(page, f"compare-{width}.png")
    finally:
        context.close()


def unpacked_halfwidths(data: dict) -> list[list[int]]:
    """A compare section's half-widths (in 1/scale), unpacked from their base64 rows in
    the way the docs describe, independently of compare.js."""
    import base64

    kind = "<u1" if data["halfwidth_bytes"] == 1 else "<u2"
    return [np.frombuffer(base64.b64decode(row), dtype=kind).tolist()
            for row in data["halfwidth"]]
