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
  (`judge_bias`), where the data say which side that was.
- A dataset with a single judge has no agreement between judges: only its test-retest
  (and repeat) reliability is shown and published, never a judge set against itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.datasets import DATASETS, dataset_name, find
from ffsite.format import schema
from ffsite.metrics.bias import wilson_interval
from ffsite.metrics.panel import STATISTICS
from ffsite.site.context import SiteContext, labelled
from ffsite.site.explore_data import bias_table
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
    "test_retest": ("Test-retest", "one answer set against the other: the correlation across "
                    "models of the panel's means of each"),
    "test_retest_spearman_brown": ("Test-retest, both sets", "the same, stepped up to the "
                                   "mean of both answer sets the site shows (Spearman-Brown)"),
    "judge_repeat": ("Repeat", "a judge scoring the same answers twice: the correlation of "
                     "its two repetitions"),
}


# Statistics that set one judge against another: none with a single judge.
BETWEEN_JUDGES = ("krippendorff_alpha", "cronbach_alpha")
# Why a row of the bias table has no position figure (its `order_note`).
ORDER_NOT_IN_DATA = "order not in the data"
# Why a row's length figure is not the lengths of the answers the judge read.
LENGTH_AVERAGES = "per-model average lengths of the scenario"


def build(ctx: SiteContext) -> None:
    bias = judge_bias(ctx)
    bias_download = ctx.output.data("judge-bias", bias, "Each pairwise judge's picks of the "
                                    "first-shown side (where the data say which it was) and "
                                    "of the longer side", PAGE)
    panels = [panel_tables(ctx, found) for found in ctx.prepared(judge_panels).values()]
    lengths = {dataset for dataset, sides in ctx.prepared(average_length_sides).items()
               if len(sides)}
    ctx.output.page(PAGE, "judges.html", section=PAGE, overview=overview_table(ctx),
                    panels=panels, bias=bias_rows(bias), bias_download=bias_download,
                    eqbench_lengths="eqbench3" in lengths)


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
    tables = {}
    if several:
        tables["reliability"] = reliability_table(ctx, reliability, ctx.output.data(
            f"judges/{slug}-agreement", reliability, f"{dataset_name(dataset)}: agreement "
            "between the judges per trait, with 95% intervals", PAGE))
        correlations = labelled(found.agreement.correlations, ctx.labels)
        tables["correlations"] = correlation_table(correlations, ctx.output.data(
            f"judges/{slug}-correlations", correlations, f"{dataset_name(dataset)}: "
            "Pearson and Spearman correlations between judges per trait", PAGE))
    else:
        reliability = reliability[~reliability["statistic"].isin(BETWEEN_JUDGES)
                                  ].reset_index(drop=True)
        if len(reliability):
            tables["reliability"] = reliability_table(
                ctx, reliability, ctx.output.data(
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
    record = find(dataset)
    return {"dataset": dataset_name(dataset), "id": slug, "tables": tables,
            "judges": len(found.data.judges),
            "judge": ", ".join(str(j) for j in found.data.judges),
            "units": len(found.data.units),
            "seeds": len(found.data.seeds), "models": len(found.data.models),
            "panel": record.panel if record else None}


def reliability_table(ctx: SiteContext, frame: pd.DataFrame, download, *,
                      table_id: str = "agreement",
                      caption: str = "Agreement per trait, with 95% intervals (bootstrap "
                      "over models)") -> Table:
    statistics = [s for s in STATISTICS if s in set(frame["statistic"])]
    by_cell = frame.set_index(["trait_id", "statistic"])
    rows = []
    for trait_id, label in frame[["trait_id", "trait"]].drop_duplicates().itertuples(
            index=False):
        row = [Cell(label, href=link(PAGE, ctx.slugs.page(TRAITS, trait_id)), header=True)]
        for statistic in statistics:
            if (trait_id, statistic) in by_cell.index:
                r = by_cell.loc[(trait_id, statistic)]
                row.append(estimate_cell(r["estimate"], r["ci_low"], r["ci_high"],
                                         what=STATISTIC_NAMES[statistic][0]))
            else:
                row.append(Cell("–"))
        rows.append(row)
    return Table(table_id, caption, [Column("trait", "Trait", numeric=False)] + [
        Column(s, STATISTIC_NAMES[s][0], cue="1 = perfect", title=STATISTIC_NAMES[s][1])
        for s in statistics], rows, download)


def correlation_table(correlations: pd.DataFrame, download) -> Table:
    """Judge by judge: the Pearson correlation across models, averaged over the traits."""
    mean = correlations.groupby(["judge_a", "judge_b"], sort=True)["pearson"].mean()
    judges = sorted(set(correlations["judge_a"]))
    rows = [[Cell(a, header=True)] + [
        Cell(number(mean.get((a, b))), sort_value(mean.get((a, b))),
             css=None if a == b else heat_class(mean.get((a, b)) - 0.5))
        for b in judges] for a in judges]
    return Table("judge-correlations", "How alike two judges order the models: Pearson "
                 "correlation of their means across models, averaged over the traits",
                 [Column("judge", "Judge", numeric=False)]
                 + [Column(f"j{i}", j, vertical=True) for i, j in enumerate(judges)], rows,
                 download, note="The download has both correlations for every trait.")


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


# ------------------------------------------------------------ position and length

def judge_bias(ctx: SiteContext) -> pd.DataFrame:
    """`bias_table`, its position figures counted only over the votes whose first-shown
    side is known, and EQ-Bench 3's length figures from its per-model average lengths.

    bias_table takes side A as the side shown first outside the datasets whose seed gives
    the order.  For the votes a dataset's own judges cast in its imported files (HH-RLHF's
    crowdworkers, AlpacaEval's judge) A is ffsite's coin flip at import (`ffsite.sides`),
    and neither dataset records which answer its judge saw first.  Those votes leave the
    position counts: `with_order` counts the A/B votes whose order is taken as known,
    `first` and its share are over them, `order_note` says why a row has none.

    EQ-Bench 3's transcripts are not public, but every verdict carries the two models'
    average response length in characters for the scenario: the votes of a verdict whose
    two averages differ count for the side with the longer average (`length_note`)."""
    table = bias_table(ctx)
    table = known_order(table, unknown_order_votes(ctx))
    return with_average_lengths(table, average_length_votes(ctx))


def vote_names(annotators: pd.DataFrame) -> np.ndarray:
    """Each annotator's row in the bias table: (judge, "preference" or "traits")."""
    roles = np.where(annotators["role"] == schema.ROLE_PREFERENCE, "preference", "traits")
    names = np.empty(len(annotators), dtype=object)
    names[:] = list(zip(annotators["judge"].astype(str), roles, strict=True))
    return names


def order_not_recorded() -> dict[str, tuple[str, ...]]:
    """{dataset: its own judges} of the pairwise datasets imported from their own files
    (the record has an import command) whose votes do not say which side the judge saw
    first (no `seed_is_order`): the importer's sides are a coin flip."""
    return {d.id: d.judges for d in DATASETS
            if d.kind == "votes" and d.command and not d.seed_is_order}


def unknown_order_votes(ctx: SiteContext) -> pd.DataFrame:
    """Per (judge, role): the decided votes bias_table counts with side A shown first
    although the data do not say which side the judge saw first (`order_not_recorded`),
    and how many of them picked A."""
    annotations = ctx.annotations
    annotators, votes = annotations.annotators, annotations.votes
    dataset = annotations.comparisons["dataset"].astype(str).to_numpy(object)[
        votes["comparison"].to_numpy()]
    annotator = votes["annotator"].to_numpy()
    vote = votes["vote"].to_numpy()
    judges = annotators["judge"].astype(str).to_numpy(object)[annotator]
    unknown = order_not_recorded()
    own = np.zeros(len(vote), bool)
    for name, its_judges in unknown.items():
        own |= (dataset == name) & np.isin(judges, list(its_judges))
    keep = own & ((vote == schema.A) | (vote == schema.B))
    frame = pd.DataFrame({"annotator": annotator[keep], "first": vote[keep] == schema.A})
    counted = frame.groupby("annotator", sort=True)["first"].agg(["size", "sum"])
    names = vote_names(annotators)[counted.index.to_numpy(np.int64)]
    return pd.DataFrame({"judge": [j for j, _ in names], "role": [r for _, r in names],
                         "decided": counted["size"].to_numpy(np.int64),
                         "first": counted["sum"].to_numpy(np.int64)}).groupby(
        ["judge", "role"], sort=True, as_index=False).sum()


def known_order(table: pd.DataFrame, unknown: pd.DataFrame) -> pd.DataFrame:
    """The bias table with the `unknown` votes (`unknown_order_votes`) out of its
    position counts: `with_order`, `first` and its share and interval over the rest,
    and `order_note` where some or all of a row's votes have no known order."""
    table = table.copy()
    found = unknown.set_index(["judge", "role"]).reindex(
        pd.MultiIndex.from_frame(table[["judge", "role"]]))
    less = found["decided"].fillna(0).to_numpy(np.int64)
    with_order = table["decided"].to_numpy(np.int64) - less
    first = table["first"].to_numpy(np.int64) - found["first"].fillna(0).to_numpy(np.int64)
    table.insert(table.columns.get_loc("first"), "with_order", with_order)
    table["first"] = first
    with np.errstate(divide="ignore", invalid="ignore"):
        table["first_share"] = np.where(with_order > 0, first / np.maximum(with_order, 1),
                                        np.nan)
    table["first_low"], table["first_high"] = wilson_interval(first, with_order)
    table["order_note"] = [
        "" if n == 0 else ORDER_NOT_IN_DATA if n == total else
        f"over {total - n:,} votes; for {n:,}, {ORDER_NOT_IN_DATA}"
        for n, total in zip(less, table["decided"], strict=True)]
    return table


def average_length_sides(ctx: SiteContext) -> dict[str, pd.Series]:
    """{dataset: per comparison id, the side (1: A, 2: B, 0: neither) whose model's
    average response length in the scenario is longer}, for the datasets that publish
    such averages but not the answers (EQ-Bench 3), from the base data; {} without it."""
    found = {}
    root = Path(ctx.base_dir) / "eqbench3" if ctx.base_dir is not None else None
    if root is not None and (root / "pairwise_comparisons.json.gz").is_file():
        found["eqbench3"] = eqbench3_longer_sides(root / "pairwise_comparisons.json.gz")
    return found


def eqbench3_longer_sides(path: Path) -> pd.Series:
    """Per comparison id of EQ-Bench 3's importer (side A = the test model): 1 where the
    test model's average response length in the scenario is the longer, 2 where the
    neighbour's is, 0 where they are equal or missing.  Entries with an error carry no
    verdict, and none is needed for them."""
    from ffsite.datasets.eqbench3.reader import read_comparisons
    from ffsite.datasets.eqbench3.rules import comparison_id, pair

    sides = {}
    for at, entry in enumerate(read_comparisons(path)):
        if not isinstance(entry, dict) or "error" in entry:
            continue
        scenario, test, neighbour, iteration, _, _ = pair(entry, path, at)
        a = entry.get("test_model_avg_response_length")
        b = entry.get("neighbor_model_avg_response_length")
        known = all(isinstance(x, int | float) and not isinstance(x, bool) and x == x
                    for x in (a, b))
        sides[comparison_id(scenario, test, neighbour, iteration)] = (
            0 if not known or a == b else 1 if a > b else 2)
    return pd.Series(sides, dtype=np.int8)


def average_length_votes(ctx: SiteContext) -> pd.DataFrame:
    """Per (judge, role): the decided votes of the datasets of `average_length_sides`
    whose two averages differ (`with_length`), and how many picked the longer one."""
    annotators = ctx.annotations.annotators
    traits = dict(zip(annotators["trait_id"].astype(str), vote_names(annotators),
                      strict=True))
    frames = []
    for dataset, sides in ctx.prepared(average_length_sides).items():
        verdicts = ctx.seeded_votes(dataset)
        if not len(verdicts) or not len(sides):
            continue
        vote = verdicts["vote"].map(schema.VOTE_CODES).fillna(0).to_numpy(np.int64)
        longer = verdicts["comparison_id"].map(sides).fillna(0).to_numpy(np.int64)
        name = verdicts["trait_id"].astype(str).map(traits)
        keep = (((vote == schema.A) | (vote == schema.B)) & (longer > 0)
                & name.notna().to_numpy())
        frames.append(pd.DataFrame({
            "judge": [n[0] for n in name[keep]], "role": [n[1] for n in name[keep]],
            "longer": vote[keep] == longer[keep]}))
    if not frames:
        return pd.DataFrame(columns=["judge", "role", "with_length", "longer"])
    return pd.concat(frames).groupby(["judge", "role"], sort=True).agg(
        with_length=("longer", "size"), longer=("longer", "sum")).reset_index()


def with_average_lengths(table: pd.DataFrame, votes: pd.DataFrame) -> pd.DataFrame:
    """The bias table with the votes of `average_length_votes` in its length counts
    (bias_table counts them for no side), and `length_note` on the rows they join."""
    table = table.copy()
    found = votes.set_index(["judge", "role"]).reindex(
        pd.MultiIndex.from_frame(table[["judge", "role"]]))
    more = found["with_length"].fillna(0).to_numpy(np.int64)
    table["with_length"] = table["with_length"].to_numpy(np.int64) + more
    table["longer"] = (table["longer"].to_numpy(np.int64)
                       + found["longer"].fillna(0).to_numpy(np.int64))
    n = table["with_length"].to_numpy(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        table["longer_share"] = np.where(n > 0, table["longer"] / np.maximum(n, 1), np.nan)
    table["longer_low"], table["longer_high"] = wilson_interval(table["longer"], n)
    table["length_note"] = np.where(more > 0, LENGTH_AVERAGES, "")
    return table


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
