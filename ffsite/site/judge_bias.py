"""How each pairwise judge's A/B votes lean: towards the side shown first, and towards the
longer response (ffsite.metrics.bias), per judge and role, as the Judges page shows them
and publishes them (`judge-bias`).

A position figure needs the order the judge saw, and a length figure the answers'
lengths; where the data give neither, the figure is left out and a note says why (the
dataset records' `seed_is_order`, `order_unknown` and `longer_sides`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.datasets import DATASETS
from ffsite.format import schema
from ffsite.metrics.bias import longer_side, side_bias
from ffsite.site.context import SiteContext

ORDER_NOT_IN_DATA = "order not in the data"  # a judge's votes without a position figure
LENGTH_AVERAGES = "per-model average lengths of the scenario"  # not the answers' own


def bias_table(ctx: SiteContext) -> pd.DataFrame:
    """Per judge and role (preference, traits): how often its A/B votes pick the side
    shown first and the longer response (metrics/bias.py), with `role` after `judge`,
    and `order_note` and `length_note` saying where the figures are partial.

    The side shown first is A (the rule-based judge reads A first), except where a
    dataset's record says otherwise: its judge saw each pair in both orders and the seed
    says which (`Dataset.seed_is_order`: EQ-Bench 3), or its own judges' sides are
    ffsite's coin flip at import and the order they saw is unknown
    (`Dataset.order_unknown`: HH-RLHF, AlpacaEval).  Lengths are the responses'
    characters from the response-metrics files, or, where the answers are not public,
    the per-model averages a dataset's `longer_sides` hook gives; unknown lengths count
    for no side."""
    annotations = ctx.annotations
    comparisons = annotations.comparisons
    annotators = annotations.annotators
    roles = np.where(annotators["role"] == schema.ROLE_PREFERENCE, "preference", "traits")
    names = pd.Series(annotators["judge"].astype(str).to_numpy() + "\x1f" + roles)
    judge_code, judge_names = pd.factorize(names, sort=True)
    frame = annotations.votes
    comparison = frame["comparison"].to_numpy()
    ordered = [d for d in DATASETS if d.seed_is_order]
    dataset = comparisons["dataset"].astype(str).to_numpy(object)[comparison]
    keep = ~np.isin(dataset, [d.id for d in ordered])
    judge = judge_code[frame["annotator"].to_numpy()[keep]]
    vote = frame["vote"].to_numpy()[keep]
    comparison, dataset = comparison[keep], dataset[keep]
    first = np.ones(len(vote), np.int8)
    judged_by = annotators["judge"].astype(str).to_numpy(object)[frame["annotator"].to_numpy()[
        keep]]
    for record in (d for d in DATASETS if d.order_unknown):
        first[(dataset == record.id) & np.isin(judged_by, list(record.judges))] = 0
    lengths = response_lengths(ctx)
    longer = longer_side(lengths[0], lengths[1])[comparison]
    averaged = np.zeros(len(judge_names), bool)  # judges whose lengths are averages
    for record in ordered:
        verdicts = ctx.seeded_votes(record.id)
        if not len(verdicts):
            continue
        # The votes as the judge gave them, one per order.
        trait_judge = dict(zip(annotators["trait_id"], names, strict=True))
        codes = verdicts["trait_id"].map(trait_judge).map(
            {n: i for i, n in enumerate(judge_names)})
        known = codes.notna().to_numpy()
        found = codes[known].to_numpy(np.int64)
        sides = ctx.prepared(longer_sides).get(record.id, {})
        averages = verdicts["comparison_id"].map(sides).fillna(0).to_numpy(np.int8)[known]
        averaged[found[averages > 0]] = True
        judge = np.concatenate([judge, found])
        vote = np.concatenate([vote, verdicts["vote"].map(schema.VOTE_CODES).fillna(0)
                               .to_numpy(np.int64)[known]])
        first = np.concatenate([first, np.where(verdicts["seed"].to_numpy()[known] == 1,
                                                2, 1)])
        longer = np.concatenate([longer, averages])
    table = side_bias(judge, vote, first, longer, list(judge_names))
    table["order_note"] = [
        "" if n == total else ORDER_NOT_IN_DATA if n == 0 else
        f"over {n:,} votes; for {total - n:,}, {ORDER_NOT_IN_DATA}"
        for n, total in zip(table["with_order"], table["decided"], strict=True)]
    table["length_note"] = np.where(averaged, LENGTH_AVERAGES, "")
    # (split by hand: a site of scores alone has no pairwise judge, and pandas' string
    # methods refuse an empty column)
    table["judge"] = [name.split("\x1f")[0] for name in judge_names]
    table.insert(1, "role", [name.split("\x1f")[1] for name in judge_names])
    return table[table["decided"] > 0].reset_index(drop=True)


def longer_sides(ctx: SiteContext) -> dict[str, dict[str, int]]:
    """{dataset: its `longer_sides` hook's answer}, read from the base data once."""
    if ctx.base_dir is None:
        return {}
    return {d.id: d.hook("longer_sides")(Path(ctx.base_dir) / d.id) for d in DATASETS
            if d.longer_sides}


def response_lengths(ctx: SiteContext) -> tuple[np.ndarray, np.ndarray]:
    """Per comparison, the characters of response A and of response B (NaN: unknown)."""
    comparisons = ctx.annotations.comparisons
    metrics = ctx.response_metrics
    if "characters" not in metrics:
        nothing = np.full(len(comparisons), np.nan)
        return nothing, nothing.copy()
    by_id = pd.Series(metrics["characters"].to_numpy(float),
                      index=metrics["dataset"].astype(str) + "\x1f"
                      + metrics["response_id"].astype(str))
    dataset = comparisons["dataset"].astype(str) + "\x1f"
    return tuple(pd.Series(dataset + comparisons[side].astype(str)).map(by_id).to_numpy(
        float) for side in ("response_a_id", "response_b_id"))
