"""Judges: every number on the site is some judge's view, and this page says how far to
trust each one (issue 23).

- Every dataset's judges: who they are, whether a panel pools them, which of them are
  rated models too (they judged their own answers).
- For a dataset whose models answered more than once (ffsite.metrics.panel): agreement
  per trait (Krippendorff's and Cronbach's alpha, answer-set test-retest, repeat
  reliability, each with a 95% interval), the judges' correlations with each other, each
  judge's leniency against the panel and, for a judge that is a rated model, how much more
  it gives its own answers than the other judges do (the self-rating gap).
- For pairwise judges: how often they pick the side shown first and the longer answer
  (`ffsite.site.judge_bias`), where the data say which side that was.
- A dataset with a single judge has no agreement between judges: only its test-retest
  (and repeat) reliability is shown and published, never a judge set against itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.datasets import DATASETS, dataset_name, find
from ffsite.metrics.panel import STATISTICS
from ffsite.site.context import SiteContext, labelled
from ffsite.site.judge_bias import bias_table
from ffsite.site.judging import JudgePanel, judge_panels
from ffsite.site.render import count, heat_class, number
from ffsite.site.urls import MODELS, TRAITS, link, page_path
from ffsite.site.views import Cell, Column, Table, estimate_cell, sort_value

PAGE = page_path("judges")
STATISTIC_NAMES = {
    "krippendorff_alpha": ("Krippendorff's alpha", "agreement between the judges' means "
                           "per model beyond chance (interval level); 1 = identical"),
    "cronbach_alpha": ("Cronbach's alpha", "how consistently the judges order the models, "
                       "taken together as one scale"),
    # (the two test-retest names depend on the dataset's unit and count: `names`)
    "test_retest": ("Test-retest", ""),
    "test_retest_spearman_brown": ("Test-retest, all", ""),
    "judge_repeat": ("Repeat", "a judge scoring the same answers twice: the correlation of "
                     "its two repetitions"),
}


def names(unit: str, k: int) -> dict[str, tuple[str, str]]:
    """STATISTIC_NAMES with the test-retest pair said for `k` repeated answers called
    `unit` (llm-dreams' 2 answer sets, poem-eval's 5 poems)."""
    units = "both" if k == 2 else f"all {k}"
    return {**STATISTIC_NAMES,
            "test_retest": ("Test-retest", f"one {unit} against another: the correlation "
                            f"across models of the panel's means of each (averaged over "
                            f"pairs of {unit}s): the reliability of one {unit}"),
            "test_retest_spearman_brown": (
                f"Test-retest, {units} {unit}s", f"the same, stepped up to the mean of the "
                f"{k} {unit}s the site shows (Spearman-Brown with k = {k}: "
                f"k r / (1 + (k - 1) r))")}


# Statistics that set one judge against another: none with a single judge.
BETWEEN_JUDGES = ("krippendorff_alpha", "cronbach_alpha")


def build(ctx: SiteContext) -> None:
    bias = bias_table(ctx)
    bias_download = ctx.output.data("judge-bias", bias, "Each pairwise judge's picks of the "
                                    "first-shown side (where the data say which it was) and "
                                    "of the longer side", PAGE)
    panels = [panel_tables(ctx, found) for found in ctx.prepared(judge_panels).values()]
    ctx.output.page(PAGE, "judges.html", section=PAGE, overview=overview_table(ctx),
                    panels=panels, bias=bias_rows(bias), bias_download=bias_download,
                    eqbench_lengths=bool((bias["length_note"] != "").any()))


def overview_table(ctx: SiteContext) -> Table:
    """Every dataset on the site: its judges, its panel, the judges that are rated models."""
    present = set(ctx.scores.responses["dataset"]) | set(ctx.annotations.datasets)
    voted = judges_with_votes(ctx)
    rows = []
    for dataset in (d for d in DATASETS if d.id in present):
        judges = list(dict.fromkeys([*dataset.judges, *voted.get(dataset.id, [])]))
        # By the names their model pages use (the judges' own are in the column before):
        # on a phone the column stays half as long.
        rated = [name_of(ctx, dataset.id, model) for _, model in dataset.judge_models]
        rows.append([Cell(dataset.name, header=True),
                     Cell(", ".join(judges) or "–", css="text"),
                     Cell(dataset.panel or "–", css="text"),
                     Cell(f"{len(rated)} of {len(judges)}: {', '.join(rated)}" if rated
                          else "none", css="text")])
    return Table("judges-overview", "Who judged each dataset", [
        Column("dataset", "Dataset", numeric=False),
        Column("judges", "Judges", numeric=False),
        Column("panel", "Pooled as", numeric=False,
               title="the name the site gives the judges' mean, when it shows one"),
        Column("rated", "Judges that are rated models", numeric=False,
               title="these judged their own answers too; their pages say so")], rows)


def judges_with_votes(ctx: SiteContext) -> dict[str, list[str]]:
    """Per dataset, every judge with votes in it (preference and traits), sorted: the
    rules judge of the text statistics too, which no record names."""
    annotations = ctx.annotations
    code, datasets = pd.factorize(annotations.comparisons["dataset"].astype(object))
    judges = annotations.annotators["judge"].astype(str).to_numpy()
    # One integer per (dataset, annotator) of every vote, made unique: no frame of votes.
    keys = np.unique(code[annotations.votes["comparison"].to_numpy()] * len(judges)
                     + annotations.votes["annotator"].to_numpy())
    found: dict[str, set[str]] = {}
    for dataset, annotator in zip(keys // len(judges), keys % len(judges), strict=True):
        found.setdefault(str(datasets[dataset]), set()).add(judges[annotator])
    return {dataset: sorted(names) for dataset, names in found.items()}


def name_of(ctx: SiteContext, dataset: str, model: str) -> str:
    return ctx.registry.display_name(ctx.registry.model_id(dataset, model))


def panel_tables(ctx: SiteContext, found: JudgePanel) -> dict:
    """One dataset's agreement, correlations, leniency and self-rating gaps; with a single
    judge, only how its numbers hold from one answer set to another (and from one
    repetition to the next): one judge has no agreement to measure, and its correlation
    with itself (1 on every trait) says nothing."""
    dataset = found.dataset
    slug = dataset.replace("_", "-")
    reliability = labelled(found.agreement.reliability, ctx.labels)
    several = found.data.judges.size > 1
    record = find(dataset)
    unit, k = (record.unit_label if record else "answer"), len(found.data.units)
    tables = {}
    if several:
        download = ctx.output.data(
            f"judges/{slug}-agreement", reliability, f"{dataset_name(dataset)}: agreement "
            "between the judges per trait, with 95% intervals", PAGE)
        tables["reliability"] = reliability_table(ctx, reliability, download, unit=unit,
                                                  k=k)
        correlations = labelled(found.agreement.correlations, ctx.labels)
        per_trait = ctx.output.data(
            f"judges/{slug}-correlations", correlations, f"{dataset_name(dataset)}: Pearson "
            "and Spearman correlations between judges per trait, the Pearson's with its 95% "
            "interval", PAGE)
        pairs = found.agreement.judge_pairs
        tables["correlations"] = correlation_table(pairs, ctx.output.data(
            f"judges/{slug}-judge-pairs", pairs, f"{dataset_name(dataset)}: Pearson "
            "correlation between judges averaged over the traits, with 95% intervals",
            PAGE), per_trait)
    else:
        reliability = reliability[~reliability["statistic"].isin(BETWEEN_JUDGES)
                                  ].reset_index(drop=True)
        if len(reliability):
            tables["reliability"] = reliability_table(
                ctx, reliability, unit=unit, k=k, download=ctx.output.data(
                    f"judges/{slug}-reliability", reliability, f"{dataset_name(dataset)}: "
                    "test-retest reliability of its single judge's means per trait, with 95% "
                    "intervals (one judge: no agreement between judges to measure)", PAGE),
                table_id="reliability", caption="Test-retest per trait, with 95% intervals "
                "(bootstrap over models)")
    if found.leniency is not None and len(found.leniency):
        frame = labelled(found.leniency, ctx.labels)
        tables["leniency"] = judge_trait_table(
            ctx, "leniency", "Leniency: each judge's mean minus the panel's, in score points",
            frame, "leniency", ctx.output.data(f"judges/{slug}-leniency", frame,
                                               f"{dataset_name(dataset)}: each judge's "
                                               "leniency per trait", PAGE))
    if found.gaps is not None and len(found.gaps):
        frame = labelled(found.gaps, ctx.labels)
        frame = frame.assign(model=ctx.registry.ids([dataset] * len(frame), frame["model"]))
        tables["gaps"] = judge_trait_table(
            ctx, "self-gap", "Self-rating gap: how much more a judge gives its own answers "
            "than the other judges do, beyond what it gives any model", frame, "gap",
            ctx.output.data(f"judges/{slug}-self-rating-gaps", frame,
                            f"{dataset_name(dataset)}: self-rating gaps", PAGE), own=True)
    return {"dataset": dataset_name(dataset), "id": slug, "tables": tables,
            "judges": len(found.data.judges),
            "judge": ", ".join(str(j) for j in found.data.judges),
            "units": len(found.data.units),
            "seeds": len(found.data.seeds), "models": len(found.data.models),
            "panel": record.panel if record else None}


def reliability_table(ctx: SiteContext, frame: pd.DataFrame, download, *,
                      unit: str, k: int, table_id: str = "agreement",
                      caption: str = "Agreement per trait, with 95% intervals (bootstrap "
                      "over models)") -> Table:
    statistics = [s for s in STATISTICS if s in set(frame["statistic"])]
    named = names(unit, k)
    by_cell = frame.set_index(["trait_id", "statistic"])
    rows = []
    for trait_id, label in frame[["trait_id", "trait"]].drop_duplicates().itertuples(
            index=False):
        row = [Cell(label, href=link(PAGE, ctx.slugs.page(TRAITS, trait_id)), header=True)]
        for statistic in statistics:
            if (trait_id, statistic) in by_cell.index:
                r = by_cell.loc[(trait_id, statistic)]
                row.append(estimate_cell(r["estimate"], r["ci_low"], r["ci_high"],
                                         what=named[statistic][0]))
            else:
                row.append(Cell("–"))
        rows.append(row)
    return Table(table_id, caption, [Column("trait", "Trait", numeric=False)] + [
        Column(s, named[s][0], cue="1 = perfect", title=named[s][1])
        for s in statistics], rows, download)


def correlation_table(pairs: pd.DataFrame, download, per_trait) -> Table:
    """Judge by judge: the Pearson correlation across models, averaged over the traits,
    with its 95% interval (bootstrap over models)."""
    judges = sorted(set(pairs["judge_a"]))
    by_pair = pairs.set_index(["judge_a", "judge_b"])
    rows = []
    for a in judges:
        row = [Cell(a, header=True)]
        for b in judges:
            r = by_pair.loc[(a, b)]
            row.append(Cell(number(r["pearson"]), sort_value(r["pearson"])) if a == b else
                       estimate_cell(r["pearson"], r["ci_low"], r["ci_high"],
                                     css=heat_class(r["pearson"] - 0.5),
                                     what=f"{a} and {b}"))
        rows.append(row)
    return Table("judge-correlations", "How alike two judges order the models: Pearson "
                 "correlation of their means across models, averaged over the traits, with "
                 "95% intervals (bootstrap over models)",
                 [Column("judge", "Judge", numeric=False)]
                 + [Column(f"j{i}", j, vertical=True) for i, j in enumerate(judges)], rows,
                 download, note="Per trait, both correlations (the Pearson's with its "
                 f"interval) are in data/{per_trait.name}.csv (Downloads).")


def judge_trait_table(ctx: SiteContext, table_id: str, caption: str, frame: pd.DataFrame,
                      value: str, download, *, own: bool = False) -> Table:
    """Judges as rows, traits as columns: `value` with its interval, coloured only where
    the interval excludes 0."""
    traits = frame[["trait_id", "trait"]].drop_duplicates()
    rows = []
    for key, part in frame.groupby(["judge", "model"] if own else ["judge"], sort=True):
        judge, model = key[0], key[-1]
        head = Cell(judge, header=True)
        if own:  # the judge on its own model, linked to the model's page
            target = ctx.slugs.page(MODELS, model)
            head = Cell(f"{judge} on {ctx.registry.display_name(model)}",
                        href=link(PAGE, target) if target else None, header=True)
        cells = part.set_index("trait_id")
        row = [head]
        for trait_id in traits["trait_id"]:
            if trait_id not in cells.index:
                row.append(Cell("–"))
                continue
            r = cells.loc[trait_id]
            clear = bool(r["ci_low"] > 0 or r["ci_high"] < 0)
            row.append(estimate_cell(r[value], r["ci_low"], r["ci_high"], signs=True,
                                     css=heat_class(r[value] / 2, clear), what=value))
        rows.append(row)
    meaning = ("+ means the judge gives its own answers more than the other judges do"
               if own else "+ means the judge scores higher than the panel")
    return Table(table_id, caption, [Column("judge", "Judge", numeric=False)] + [
        Column(t.trait_id, t.trait, vertical=True, cue="+ = more")
        for t in traits.itertuples(index=False)], rows, download,
        note=f"Coloured where the 95% interval excludes 0; {meaning}.")


def bias_rows(bias) -> list[dict]:
    """The bias table's cells: share and its 95% interval, as text; where a row has no
    known order, why."""
    rows = []
    for r in bias.itertuples(index=False):
        rows.append({
            "judge": r.judge, "role": r.role, "decided": count(r.decided),
            "first": _share(r.first_share) if r.with_order else r.order_note,
            "first_ci": _interval(r.first_low, r.first_high),
            "first_note": r.order_note if r.with_order else "",
            "first_v": sort_value(r.first_share), "with_length": count(r.with_length),
            "longer": _share(r.longer_share),
            "longer_ci": _interval(r.longer_low, r.longer_high),
            "longer_note": r.length_note, "longer_v": sort_value(r.longer_share)})
    return rows


def _share(value: float) -> str:
    return "–" if value != value else f"{100 * value:.1f}%"


def _interval(low: float, high: float) -> str:
    return "" if low != low else f"{100 * low:.1f}% to {100 * high:.1f}%"
