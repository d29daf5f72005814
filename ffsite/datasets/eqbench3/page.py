"""EQ-Bench 3: emotional intelligence judged pair by pair (Claude 3.7 Sonnet), criterion by
criterion.

The models never meet the site's reference model here, so everything is measured among
themselves (`SiteContext.pairwise()`): Bradley-Terry + Firth Elo per criterion, anchored at
1000 on one model, and each model's FF strength against all the others it met (on the
scenarios that ask the criterion).  With the
base data, a few clear verdicts are shown with the scenario prompt and the judge's own
reasoning (base data, joined at build time; never published as a table).

The trait page of each criterion is criterion.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from markupsafe import Markup

from ffsite.datasets.eqbench3 import reader as base
from ffsite.datasets.eqbench3.rules import ANALYSIS, CRITERIA, ROLE_PLAY, trait_id
from ffsite.datasets.eqbench3.scale import MAX_DIFF, WIN_BINS
from ffsite.metrics.results import PairwiseResults
from ffsite.site import charts, views
from ffsite.site.context import SiteContext
from ffsite.site.judging import judge_badge, self_judges
from ffsite.site.output import Download
from ffsite.site.render import heat_class, response_html, signed
from ffsite.site.urls import MODELS, TRAITS, link, page_path
from ffsite.site.views import (
    Cell,
    Column,
    Table,
    chart,
    count_cell,
    estimate_cell,
)

DATASET = base.NAME
PAGE = page_path("eqbench")
OVERALL = trait_id("overall_eq")
BOTH = "both"  # a criterion asked in both scenario types
JUDGE_NAME = "Claude 3.7 Sonnet"
SOURCE_URL = "https://github.com/EQ-bench/eqbench3"
HOME_TOP = 5  # models the home page lists
CLEAR_MARGIN = 3  # an example's overall-EQ verdict has at least "+++" in each order
REASONING_LIMIT = 3000  # characters of the judge's reasoning shown on an example
CUE_ELO = "higher = shows it more"
CUE_STRENGTH = "higher = shown more than the other models"
# Criteria in the order pages list them: the two both scenario types ask, then role-play's,
# then analysis's.
TYPE_ORDER = {BOTH: 0, ROLE_PLAY: 1, ANALYSIS: 2}


def build(ctx: SiteContext) -> None:
    found = ctx.pairwise.get(DATASET)
    criteria = criteria_table(ctx)
    if found is None or criteria.empty:
        ctx.output.page(PAGE, "eqbench.html", section=PAGE, present=False, charts=[])
        return
    output = ctx.output
    ratings = rating_rows(ctx, found, criteria)
    strengths = strength_rows(ctx, found, criteria)
    verdicts = ctx.seeded_votes(DATASET)
    criteria_download = output.data("eqbench3-criteria", criteria, "EQ-Bench 3 criteria",
                                    PAGE)
    rating_download = output.data(
        "eqbench3-ratings", ratings, f"EQ-Bench 3: Elo per criterion and model (judge "
        f"{JUDGE_NAME}; {found.anchor} = 1000)", PAGE)
    strength_download = output.data(
        "eqbench3-strength", strengths, f"EQ-Bench 3: strength of each criterion, each "
        f"model against the others (judge {JUDGE_NAME})", PAGE)

    overall = ratings[ratings["trait_id"] == OVERALL]
    # Models in the order of the overall ranking; models without it last, by name.
    order = list(overall["model"]) + sorted(set(ratings["model"]) - set(overall["model"]),
                                            key=str.lower)
    picker = None
    if len(ratings):
        rated = [t for t in criteria["trait_id"] if t in set(ratings["trait_id"])]
        picker = chart("eq-criterion-chart", charts.selectable(
            ratings.assign(name=ratings["model_name"]).rename(columns={
                "trait_id": "key", "elo": "value", "ci_low": "low", "ci_high": "high"}),
            rated, [criterion_name(criteria, t) for t in rated], "Criterion", "Elo",
            f"Elo of every model on the chosen EQ-Bench 3 criterion (judge {JUDGE_NAME}), "
            f"with its 95% interval; {display(ctx, found.anchor)} is fixed at 1000. The "
            "table below lists every number.", interval=True))
    examples, examples_note = example_pairs(ctx, verdicts, criteria, overall)
    # The overall section builds on this module's tables (imported here: it imports them).
    from ffsite.datasets.eqbench3 import overall as first
    scaled = ctx.prepared(first.overall)
    agreement = first.criteria_agreement(ctx)
    scale_download = output.data(
        "eqbench3-scale", scaled.frame, "EQ-Bench 3: overall EQ on EQ-Bench's scale "
        "(its method, recomputed) and ffsite's Bradley-Terry on the same scale",
        PAGE) if scaled else None
    elo_table = wide_table(ctx, "eq-elo", "Elo of each model on each criterion (higher = "
                           "shows it more; 95% interval under each value)", order, criteria,
                           ratings, elo_cell, CUE_ELO, rating_download)
    strength_table = wide_table(ctx, "eq-strength", "Strength of each criterion, each model "
                                "against the others (higher = shown more; 95% interval under "
                                "each value)", order, criteria, strengths,
                                lambda r: strength_estimate(r, ctx.min_valid), CUE_STRENGTH,
                                strength_download)
    output.page(
        PAGE, "eqbench.html", section=PAGE, present=True,
        charts=[c for c in (agreement.chart if agreement else None, picker) if c],
        scaled=scaled, agreement=agreement, win_bins=WIN_BINS, max_diff=MAX_DIFF,
        scale_table=first.overall_table(ctx, scaled, scale_download) if scaled else None,
        anchor=display(ctx, found.anchor), anchor_page=model_href(ctx, PAGE, found.anchor),
        judge=JUDGE_NAME, judge_id=criteria["judge"].iloc[0], source_url=SOURCE_URL,
        pairs=int((ctx.annotations.comparisons["dataset"] == DATASET).sum()),
        verdicts=len(verdicts.drop_duplicates(["comparison_id", "seed"])),
        left_out=left_out(ctx), models=len(order),
        overall_table=overall_table(ctx, overall, rating_download), picker=picker,
        criteria=criteria_list(ctx, criteria, criteria_download), elo_table=elo_table,
        strength_table=strength_table, examples=examples, examples_note=examples_note,
        reasoning_limit=REASONING_LIMIT, resamples=ctx.config.rating_resamples)


# --------------------------------------------------------------------------- tables

def criteria_table(ctx: SiteContext) -> pd.DataFrame:
    """One row per EQ-Bench 3 criterion the annotations hold: trait_id, criterion (its
    label), wording (ours), scenario_type (role-play, analysis or both), judge."""
    traits = ctx.traits[ctx.traits["trait_id"].str.startswith("eq-")
                        & ~ctx.traits["scored"]]
    types = {trait_id(name): kind or BOTH for name, (_, kind) in CRITERIA.items()}
    frame = pd.DataFrame({
        "trait_id": traits["trait_id"].to_numpy(),
        "criterion": traits["label"].to_numpy(),
        "wording": traits["trait"].to_numpy(),
        "scenario_type": traits["trait_id"].map(types).fillna(BOTH).to_numpy(),
        "judge": traits["judge"].to_numpy()})
    rank = frame["scenario_type"].map(TYPE_ORDER)
    # The overall criterion first, then by scenario type and name.
    frame = frame.assign(_first=frame["trait_id"] != OVERALL, _rank=rank).sort_values(
        ["_first", "_rank", "trait_id"], kind="stable")
    return frame.drop(columns=["_first", "_rank"]).reset_index(drop=True)


def criterion_name(criteria: pd.DataFrame, trait: str) -> str:
    return str(criteria.loc[criteria["trait_id"] == trait, "criterion"].iloc[0])


def rating_rows(ctx: SiteContext, found: PairwiseResults, criteria: pd.DataFrame
                ) -> pd.DataFrame:
    """The ratings with each criterion's label, scenario type and judge, and each model's
    display name."""
    ratings = found.ratings.drop(columns="description")
    facts = criteria.set_index("trait_id")
    ratings.insert(1, "criterion", ratings["trait_id"].map(facts["criterion"]).to_numpy())
    ratings.insert(2, "scenario_type", ratings["trait_id"].map(
        facts["scenario_type"]).to_numpy())
    ratings.insert(4, "model_name", [display(ctx, m) for m in ratings["model"]])
    return ratings.assign(anchor=found.anchor, judge=ratings["trait_id"].map(
        facts["judge"]).to_numpy())


def strength_rows(ctx: SiteContext, found: PairwiseResults, criteria: pd.DataFrame
                  ) -> pd.DataFrame:
    """Each model against all the others it met, per criterion (each counted on the
    scenarios that ask it: results.pairwise_results), with labels, judge and display
    names; criteria in the page's order, models by name."""
    facts = criteria.set_index("trait_id")
    frame = found.models.traits
    frame = frame[frame["trait_id"].isin(facts.index)].copy()
    frame.insert(1, "model_name", [display(ctx, m) for m in frame["model"]])
    frame.insert(3, "criterion", frame["trait_id"].map(facts["criterion"]).to_numpy())
    frame.insert(4, "scenario_type", frame["trait_id"].map(facts["scenario_type"]).to_numpy())
    frame["judge"] = frame["trait_id"].map(facts["judge"]).to_numpy()
    position = frame["trait_id"].map({t: k for k, t in enumerate(criteria["trait_id"])})
    frame = frame.assign(_position=position, _name=frame["model"].str.lower())
    return frame.sort_values(["_position", "_name"], kind="stable").drop(
        columns=["_position", "_name"]).reset_index(drop=True)


def overall_table(ctx: SiteContext, overall: pd.DataFrame, download: Download) -> Table:
    tied = views.tied_first(overall)
    return Table("eq-overall", f"Overall EQ (judge {JUDGE_NAME})", rank_columns(),
                 [rank_row(ctx, PAGE, r, len(overall), tied)
                  for r in overall.itertuples(index=False)], download)


def rank_columns() -> list[Column]:
    return [Column("model", "Model", numeric=False),
            views.rank_column(ranks="elo"),
            Column("elo", "Elo", cue=CUE_ELO),
            Column("n", "Comparisons")]


def rank_row(ctx: SiteContext, page: str, row, of: int, tied: int = 0) -> list[Cell]:
    return [model_cell(ctx, page, row.model), views.ranked_cell(row, of, tied=tied), elo_cell(row),
            count_cell(row.n)]


def criteria_list(ctx: SiteContext, criteria: pd.DataFrame, download: Download) -> Table:
    return Table("eq-criteria", "The criteria and the scenarios that ask them", [
        Column("criterion", "Criterion", numeric=False),
        Column("type", "Asked in", numeric=False),
        Column("wording", "What it means (our summary)", numeric=False)],
        [[Cell(r.criterion, href=link(PAGE, ctx.slugs.page(TRAITS, r.trait_id)),
               header=True), Cell(short_type(r.scenario_type)),
          Cell(r.wording.split(": ", 1)[-1])] for r in criteria.itertuples(index=False)],
        download)


def short_type(kind: str) -> str:
    return "both types" if kind == BOTH else kind


def type_text(kind: str) -> str:
    return {BOTH: "both scenario types", ROLE_PLAY: "role-play scenarios",
            ANALYSIS: "analysis scenarios"}.get(kind, kind)


def wide_table(ctx: SiteContext, table_id: str, caption: str, models: list[str],
               criteria: pd.DataFrame, long: pd.DataFrame, make_cell, cue: str,
               download: Download) -> Table:
    """Models as rows (in `models`' order), one column per criterion."""
    cells = {(r.model, r.trait_id): make_cell(r) for r in long.itertuples(index=False)}
    columns = [Column("model", "Model", numeric=False)] + [
        Column(f"c{k}", r.criterion, cue=r.scenario_type, vertical=True,
               title=f"{r.wording} ({type_text(r.scenario_type)}; {cue})")
        for k, r in enumerate(criteria.itertuples(index=False))]
    rows = [[model_cell(ctx, PAGE, model)] + [cells.get((model, t), Cell("–"))
                                               for t in criteria["trait_id"]]
            for model in models]
    return Table(table_id, caption, columns, rows, download)


def elo_cell(row) -> Cell:
    return views.elo_cell(row.elo, row.ci_low, row.ci_high)


def strength_estimate(row, min_valid: int) -> Cell:
    """A heat cell with the strength's 95% interval in view; too few valid votes: no
    colour, and the title says why."""
    cell = estimate_cell(row.strength, row.strength_low, row.strength_high, signs=True,
                         css=heat_class(row.strength, row.finding), what="strength")
    if not row.finding:
        cell = replace(cell, title=f"{cell.title or signed(row.strength)}; only "
                       f"{row.valid_votes} valid votes (fewer than {min_valid})")
    return cell


def display(ctx: SiteContext, model: str | None) -> str:
    return "" if model is None else ctx.registry.display_name(model)


def model_href(ctx: SiteContext, page: str, model: str | None) -> str | None:
    target = ctx.slugs.page(MODELS, model) if model is not None else None
    return link(page, target) if target else None


def model_cell(ctx: SiteContext, page: str, model: str) -> Cell:
    """A row header naming a model by its display name, linked to its page; the id in
    the title when the display name differs."""
    name = display(ctx, model)
    return Cell(name, href=model_href(ctx, page, model), header=True,
                title=model if name != model else None, **judge_badge(ctx, DATASET, model))


# ------------------------------------------------------------------------ the votes

def left_out(ctx: SiteContext) -> int | None:
    """How many judge verdicts the import left out (an error instead of a judgement),
    as the votes files record it; None when no file says."""
    files = set(ctx.trait_vote_files(DATASET))
    counts = [sum((extra.get("left_out") or {}).values())
              for path, extra in ctx.annotations.run_summaries.items()
              if path in files and "left_out" in extra]
    return sum(counts) if counts else None


# ------------------------------------------------------------------------- examples

@dataclass
class Reading:
    """The judge's reasoning in one order, and which model each respondent code is."""

    first: str  # e.g. "A0493 = Model X (shown first)"
    second: str
    html: Markup
    cut: bool


@dataclass
class EqExample:
    anchor: str
    scenario_type: str
    scenario: str
    prompt: Markup  # rendered from Markdown, sanitised
    prompt_cut: bool
    model_a: str
    model_b: str
    href_a: str | None
    href_b: str | None
    winner: str  # display name of the model the judge preferred on overall EQ
    judged_itself: str | None  # display name of the side that is the judge's own model
    total: int  # the overall-EQ margins of both orders added up (2-10)
    verdicts: Table  # every criterion of the pair, in each order
    readings: list[Reading]


def clear_verdicts(verdicts: pd.DataFrame, comparisons: pd.DataFrame,
                   overall_elo: pd.Series) -> pd.DataFrame:
    """Per comparison whose overall-EQ verdict picked the same side in both orders with a
    margin of at least CLEAR_MARGIN each: comparison_id, prompt_id, scenario_type,
    model_a, model_b, side (A/B), total margin and gap (the two models' overall Elo
    apart).  The closest-rated models first (a clear verdict between near equals says
    the most; the largest margins mostly meet broken or empty transcripts), then the
    largest total, then by comparison id."""
    overall = verdicts[verdicts["trait_id"] == OVERALL]
    wide = overall.pivot_table(index="comparison_id", columns="seed",
                               values=["vote", "margin"], aggfunc="first")
    if not {("vote", 0), ("vote", 1)} <= set(wide.columns):
        return pd.DataFrame(columns=["comparison_id", "prompt_id", "scenario_type",
                                     "model_a", "model_b", "side", "total", "gap"])
    same = (wide[("vote", 0)] == wide[("vote", 1)]) & wide[("vote", 0)].isin(["A", "B"])
    strong = (wide[("margin", 0)] >= CLEAR_MARGIN) & (wide[("margin", 1)] >= CLEAR_MARGIN)
    wide = wide[(same & strong).to_numpy()]
    frame = pd.DataFrame({"comparison_id": wide.index.to_numpy(),
                          "side": wide[("vote", 0)].to_numpy(),
                          "total": (wide[("margin", 0)].astype(int)
                                    + wide[("margin", 1)].astype(int)).to_numpy()})
    info = comparisons[(comparisons["dataset"] == DATASET).to_numpy()].set_index(
        "comparison_id")
    for name, column in (("prompt_id", "prompt_id"), ("scenario_type", "meta.scenario_type"),
                         ("model_a", "model_a"), ("model_b", "model_b")):
        frame[name] = frame["comparison_id"].map(info[column]).astype(object).to_numpy() \
            if column in info else None
    gap = (frame["model_a"].map(overall_elo) - frame["model_b"].map(overall_elo)).abs()
    frame["gap"] = gap.fillna(np.inf).to_numpy(float)
    return frame.sort_values(["gap", "total", "comparison_id"], ascending=[True, False, True],
                             kind="stable").reset_index(drop=True)


def example_pairs(ctx: SiteContext, verdicts: pd.DataFrame, criteria: pd.DataFrame,
                  overall: pd.DataFrame) -> tuple[list[EqExample], str | None]:
    """A clear overall-EQ verdict on a role-play and on an analysis scenario, with
    the scenario prompt and the judge's reasoning; or a note saying why there are none."""
    if not ctx.config.examples:
        return [], "Example pairs are turned off in this site's settings."
    texts = ctx.texts(DATASET)
    path = Path(ctx.base_dir) / DATASET / base.COMPARISONS_FILE if ctx.base_dir else None
    if texts is None or path is None or not path.is_file():
        return [], ("Examples omitted: the scenario prompts and the judge's reasoning are "
                    "EQ-Bench 3's base data, not part of this build (build with "
                    "FFSITE_BASE_DATA or --base-data to show them).")
    prompts = texts[0]
    reasoning = base.read_reasoning(path)
    candidates = clear_verdicts(verdicts, ctx.annotations.comparisons,
                                overall.set_index("model")["elo"])
    both_orders = ({c for c, seed in reasoning if seed == 0}
                   & {c for c, seed in reasoning if seed == 1})
    has_text = (candidates["prompt_id"].isin(list(prompts))
                & candidates["comparison_id"].isin(list(both_orders)))
    candidates = candidates[has_text.to_numpy(bool)]
    labels = criteria.set_index("trait_id")["criterion"]
    judges = ctx.prepared(self_judges)
    examples = []
    for kind in (ROLE_PLAY, ANALYSIS):
        for row in candidates[candidates["scenario_type"] == kind].head(1).itertuples(
                index=False):
            names = {"A": display(ctx, row.model_a), "B": display(ctx, row.model_b)}
            readings = []
            for seed in (0, 1):
                said = reasoning[(row.comparison_id, seed)]
                shown = ("A", "B") if seed == 0 else ("B", "A")
                html, cut = response_html(said.text, REASONING_LIMIT)
                readings.append(Reading(f"{said.first} = {names[shown[0]]} (shown first)",
                                        f"{said.second} = {names[shown[1]]} (shown second)",
                                        html, cut))
            prompt, prompt_cut = response_html(prompts[row.prompt_id])
            own = verdicts[(verdicts["comparison_id"] == row.comparison_id).to_numpy()]
            examples.append(EqExample(
                anchor=f"example-{kind}", scenario_type=kind, scenario=str(row.prompt_id),
                prompt=prompt, prompt_cut=prompt_cut, model_a=names["A"],
                model_b=names["B"], href_a=model_href(ctx, PAGE, row.model_a),
                href_b=model_href(ctx, PAGE, row.model_b), winner=names[row.side],
                judged_itself=next((names[side] for side, model in (("A", row.model_a),
                                                                   ("B", row.model_b))
                                    if (DATASET, model) in judges), None),
                total=int(row.total),
                verdicts=pair_verdicts(f"eq-verdicts-{kind}", own, criteria, labels, names),
                readings=readings))
    if not examples:
        return [], "No overall-EQ verdict was the same in both orders with its texts found."
    return examples, None


def pair_verdicts(table_id: str, own: pd.DataFrame, criteria: pd.DataFrame,
                  labels: pd.Series, names: dict[str, str]) -> Table:
    """One row per criterion of a pair: the judge's verdict in each order (the side and
    its margin of one to five '+') and what the two make together."""
    said = {(r.trait_id, r.seed): (r.vote, r.margin) for r in own.itertuples(index=False)}
    rows = []
    for trait in criteria["trait_id"]:
        first, second = said.get((trait, 0)), said.get((trait, 1))
        if first is None and second is None:
            continue
        rows.append([Cell(labels[trait], header=True), verdict_cell(first, names),
                     verdict_cell(second, names), Cell(combined(first, second, names))])
    return Table(table_id, "The judge's verdict on every criterion of this pair", [
        Column("criterion", "Criterion", numeric=False),
        Column("first", f"{names['A']} shown first", numeric=False),
        Column("second", f"{names['B']} shown first", numeric=False),
        Column("together", "Both orders together", numeric=False)], rows)


def verdict_cell(verdict: tuple[str, int] | None, names: dict[str, str]) -> Cell:
    if verdict is None:
        return Cell("–")
    side, margin = verdict
    plus = "+" * int(margin) if pd.notna(margin) else ""
    return Cell(f"{names.get(side, side)} {plus}".strip())


def combined(first: tuple[str, int] | None, second: tuple[str, int] | None,
             names: dict[str, str]) -> str:
    """What the two orders make together (docs/format.md: a split is a tie)."""
    sides = {v[0] for v in (first, second) if v is not None}
    if len(sides) == 1:
        return names.get(next(iter(sides)), "tie")
    return "tie (the orders disagree)"
