"""Compare: any two models side by side, trait by trait.

The page carries every model's strengths and their 95% intervals as JSON (the same
numbers as data/model-traits.csv), and for every pair of models the half-width of the
95% interval of their difference, paired by prompt (ffsite.metrics.differences).  A
small script fills the table for the two models named in the URL (?a=...&b=...), so no
page per pair is generated; without them, the two models that differ most.  The chart
arrives drawn for that pair; another pair loads the chart library and redraws it.
"""

from __future__ import annotations

import base64

import numpy as np

from ffsite.metrics.differences import (
    difference_halfwidths,
    jeffreys_variance,
    prompt_count,
    strength_covariance,
)
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.pages.home import leaderboard_traits
from ffsite.site.render import json_script
from ffsite.site.urls import page_path
from ffsite.site.views import chart

SCALE = 1000  # half-widths travel as integers in thousandths (rounded up: never narrower)


def build(ctx: SiteContext) -> None:
    long = ctx.models.traits
    models = list(ctx.models.models["model"])
    board = leaderboard_traits(ctx)
    order = board.shown
    labels = ctx.labels
    page = page_path("compare")
    data: dict = {"models": models, "traits": [], "strength": {}, "low": {}, "high": {},
                  "halfwidth": []}
    first, second = (models + [None, None])[:2]
    rows: list[dict] = []
    if len(models) >= 2 and order:
        values = {column: long.pivot(index="model", columns="trait_id", values=column)
                  .reindex(index=models, columns=order)
                  for column in ("strength", "strength_low", "strength_high")}
        for key, column in (("strength", "strength"), ("low", "strength_low"),
                            ("high", "strength_high")):
            data[key] = {model: [None if v != v else round(float(v), 4) for v in row]
                         for model, row in zip(models, values[column].to_numpy(),
                                               strict=True)}
        # compare.js links each trait to traits/<slug>.html
        data["traits"] = [{"label": labels[t], "slug": ctx.slugs.traits[t]} for t in order]
        halfwidths = pair_halfwidths(ctx, models, order,
                                     values["strength_low"].to_numpy(float),
                                     values["strength_high"].to_numpy(float))
        upper = np.triu_indices(len(models), k=1)
        # Rounded before rounding up, so a last-bit difference never moves a bound.
        thousandths = np.ceil(np.round(halfwidths[:, upper[0], upper[1]] * SCALE, 6))
        data["halfwidth_bytes"], data["halfwidth"] = packed(thousandths.astype(np.int64))
        first, second = most_different(values["strength"].to_numpy())
        rows = difference_rows(data, first, second, thousandths / SCALE)
        first, second = models[first], models[second]
        data["drawn"] = [first, second]
    difference = chart("compare-chart", charts.difference_intervals(
        "Per-trait difference in strength between the two chosen models (first minus "
        "second), largest differences first, with its 95% interval as a line; faint "
        "bars are differences not distinguishable from zero. The table lists the same "
        "numbers.", rows))
    mirrored = [(labels[m], labels[k]) for m, k in board.mirrors.items()]
    ctx.output.page(page, "compare.html", section=page, models=models,
                    data=json_script(data), difference=difference, charts=[difference],
                    reference=ctx.models.reference_model, first=first, second=second,
                    mirrored=mirrored)


def difference_rows(data: dict, first: int, second: int, halfwidths: np.ndarray
                    ) -> list[dict]:
    """The chart's rows for models `first` < `second` (indexes), as compare.js makes
    them from the page's numbers: per trait the difference of the rounded strengths
    with its interval from the published half-width, largest difference first."""
    a, b = data["models"][first], data["models"][second]
    n = len(data["models"])
    pair = first * (2 * n - first - 1) // 2 + (second - first - 1)  # upper triangle
    rows = []
    for index, trait in enumerate(data["traits"]):
        one, other = data["strength"][a][index], data["strength"][b][index]
        if one is None or other is None:
            continue
        difference = one - other
        half = float(halfwidths[index, pair])
        low, high = difference - half, difference + half
        rows.append({"name": trait["label"], "difference": difference, "low": low,
                     "high": high, "sure": bool(low > 0 or high < 0)})
    return sorted(rows, key=lambda row: -abs(row["difference"]))


def packed(values: np.ndarray) -> tuple[int, list[str]]:
    """(bytes per value, one base64 string per row) of non-negative integers, little
    endian: a third of the size of a JSON list of numbers (the page holds every pair)."""
    width = 1 if values.max(initial=0) < 2**8 else 2
    if values.max(initial=0) >= 2**16:
        values = np.minimum(values, 2**16 - 1)  # 65.535: wider than any strength range
    kind = "<u1" if width == 1 else "<u2"
    return width, [base64.b64encode(row.astype(kind).tobytes()).decode("ascii")
                   for row in values]


def pair_halfwidths(ctx: SiteContext, models: list[str], order: list[str],
                    low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """halfwidth[trait (in `order`), model, model] of the 95% interval of the difference
    between two models' strengths, paired by prompt; `low`, `high` [models, traits]: each
    model's own 95% interval (Jeffreys), whose variance is the floor of its own."""
    reference = ctx.models.reference
    gram = strength_covariance(ctx.annotations, ctx.votes, reference)
    trait_index = np.array([list(ctx.votes.traits["trait_id"]).index(t) for t in order])
    group_index = {g: i for i, g in enumerate(reference.groups)}
    rows = np.array([group_index[m] for m in models])
    gram = gram[trait_index][:, rows][:, :, rows]
    return difference_halfwidths(gram, prompt_count(ctx.annotations, reference),
                                 floor=jeffreys_variance(low, high).T)


def most_different(strength: np.ndarray) -> tuple[int, int]:
    """The pair of rows (models) of `strength` [models, traits] whose strengths differ
    most in total over the traits (first in row order on a tie)."""
    filled = np.nan_to_num(strength)
    total = np.abs(filled[:, None, :] - filled[None, :, :]).sum(axis=2)
    first, second = np.unravel_index(int(np.argmax(total)), total.shape)
    return (int(first), int(second)) if first < second else (int(second), int(first))
