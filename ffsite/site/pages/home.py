"""Home: judged personality first (ffsite.site.pages.judged), then the text-statistics
leaderboard: each rules-judge trait ranked at a glance (most / least, by the interval
rule of ffsite.metrics.ranking; traits without signal rank nobody), a chart of every
model with its 95% interval on the chosen trait, and a table (a row per model, a column
per trait, a mirror trait shown once) with interval and rank in each cell."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from markupsafe import Markup

from ffsite.metrics.ranking import mirror_traits
from ffsite.metrics.results import spread
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.model_meta import meta_cells, meta_columns, with_meta
from ffsite.site.pages.judged import judged_overview, more_judged
from ffsite.site.pages.lineage import RULE, shifts_tables
from ffsite.site.render import NOT_ZERO, content_markdown
from ffsite.site.urls import MODELS, TRAITS, link, page_path
from ffsite.site.views import (
    CUE_STRENGTH,
    HEAT,
    Cell,
    Chart,
    Column,
    Glance,
    Ranked,
    Table,
    chart,
    count_cell,
    glance,
    rank_rows,
    ranked_strength_cell,
    standings,
)

GLANCE = 3  # models listed at each end of a trait
NO_SIGNAL = (f"On these traits no model's 95% interval lies wholly beyond ±{NOT_ZERO:g} "
             "(or no model has enough valid votes): every model writes about like the "
             "reference, as far as the votes can tell, so nobody is ranked.")
NO_SIGNAL_TRAIT = (f"No signal: no model's 95% interval of strength lies wholly beyond "
                   f"±{NOT_ZERO:g} (every model writes about like the reference), so no "
                   "model is ranked on this trait.")
RANK_NOTE = ("Under each strength, its 95% interval; #a–b is the 95% range of its rank "
             "among the ranked models (drawn from every model's interval; #n when the "
             "range is one place): the places the data allow for that model. "
             f"Traits with no signal (no model's interval beyond ±{NOT_ZERO:g}) and cells "
             "with too few valid votes get no rank. Sort by any column.")


def trait_order(ctx: SiteContext) -> list[str]:
    """Trait ids, those on which the models differ most first (FF's "max diff")."""
    long = ctx.models.traits
    if long.empty:
        return list(ctx.traits["trait_id"])
    frame = spread(long).rename("spread").reset_index()
    return list(frame.sort_values(["spread", "trait_id"], ascending=[False, True],
                                  kind="stable")["trait_id"])


@dataclass(frozen=True)
class Leaderboard:
    """The text-statistics traits as the home page shows them: mirrors left out, each
    remaining trait ranked (ffsite.metrics.ranking)."""

    shown: list[str]  # trait ids, those on which models differ most first
    mirrors: dict[str, str]  # {left-out trait: the shown trait it mirrors}
    ranked: dict[str, Ranked]  # per shown trait: the findings, ranked


def leaderboard_traits(ctx: SiteContext) -> Leaderboard:
    """Which traits the leaderboard shows and how their models rank.  Only findings
    (enough valid votes) are ranked; a trait shows a signal when some model's interval
    lies wholly beyond ±NOT_ZERO, the strength the site calls "about zero"."""
    long = ctx.models.traits
    if long.empty:
        return Leaderboard([], {}, {})
    order = [t for t in trait_order(ctx) if t in set(long["trait_id"])]
    pivot = long.pivot(index="model", columns="trait_id", values="strength")
    mirrors = mirror_traits(pivot, order)
    shown = [t for t in order if t not in mirrors]
    findings = long[long["finding"].astype(bool)]
    ranked = {}
    for trait_id, own in findings.groupby("trait_id", sort=False):
        if trait_id in shown:
            ranked[trait_id] = rank_rows(own.rename(columns={
                "strength": "value", "strength_low": "low", "strength_high": "high"})[
                ["model", "value", "low", "high"]], null=0.0, band=NOT_ZERO)
    return Leaderboard(shown, mirrors, ranked)


def build(ctx: SiteContext) -> None:
    results = ctx.models
    output = ctx.output
    page = page_path("index")
    board = ctx.prepared(leaderboard_traits)
    shown = board.shown
    long = results.traits
    output.data("models", with_meta(results.models, ctx.registry), "Models", page)
    long_download = output.data("model-traits", long, "Every model's traits vs the reference "
                                "(all metrics)", page)
    wide = pd.DataFrame({"model": results.models["model"],
                         "comparisons": results.models["comparisons"]})
    pivot = long.pivot(index="model", columns="trait_id", values="strength") if len(
        long) else pd.DataFrame()
    for trait_id in [t for t in trait_order(ctx) if t in pivot.columns]:
        wide[trait_id] = wide["model"].map(pivot[trait_id]).to_numpy()
    download = output.data("leaderboard", wide, "Leaderboard: strength per model and trait "
                           "(columns named by trait_id)", page)
    glances, no_signal = _glances(ctx, page, board)
    table = _leaderboard_table(ctx, page, board, download)
    headline = _headline(ctx, board)
    judged = judged_overview(ctx, page)
    more = more_judged(ctx, page)
    charts_shown = [headline] if headline else []
    judges = sorted(set(ctx.traits.set_index("trait_id").loc[shown, "judge"].dropna())) \
        if shown else []
    lede, intro_more = lede_and_rest(content_markdown(ctx.config.markdown_file("intro.md")))
    output.page(page, "home.html", section=page, lede=lede, intro_more=intro_more,
                judged=judged,
                table=table, headline=headline, charts=charts_shown, glances=glances,
                more_judged=more, shifts=shifts_tables(ctx, page), shift_rule=RULE,
                shifts_prose=True,
                no_signal=no_signal, no_signal_text=NO_SIGNAL,
                rules_judge=", ".join(judges), long_download=long_download,
                reference=results.reference_model,
                reference_page=ctx.slugs.page(MODELS, results.reference_model)
                if results.reference_model else None, n_models=len(results.models),
                n_traits=len(shown))


def lede_and_rest(intro: Markup) -> tuple[Markup, Markup]:
    """The intro's first paragraph (the page leads with it) and the rest (folded)."""
    text = str(intro)
    cut = text.find("</p>")
    if cut < 0:
        return intro, Markup("")
    cut += len("</p>")
    return Markup(text[:cut]), Markup(text[cut:].strip())


def _glances(ctx: SiteContext, page: str, board) -> tuple[list[Glance], list]:
    """A card per trait with a signal (its most and least); the others in one list."""
    labels = ctx.traits.set_index("trait_id")
    glances, no_signal = [], []
    for trait_id in board.shown:
        ranked = board.ranked.get(trait_id)
        trait_link = link(page, ctx.slugs.page(TRAITS, trait_id))
        if ranked is None or not ranked.signal:  # one card lists them all
            no_signal.append((labels.at[trait_id, "label"], trait_link))
            continue
        most, least = standings(ranked, GLANCE, ctx.registry.display_name,
                                lambda model: link(page, ctx.slugs.page(MODELS, model)),
                                signs=True)
        glances.append(glance(labels.at[trait_id, "label"], trait_link, ranked, most, least,
                              name=ctx.registry.display_name))
    return glances, no_signal


def _leaderboard_table(ctx: SiteContext, page: str, board, download) -> Table:
    """Every model's strength per trait, with its interval and rank."""
    results, shown = ctx.models, board.shown
    labels = ctx.traits.set_index("trait_id")
    ranks = {(trait_id, row.model): (int(row.most_rank), int(row.most_low),
                                     int(row.most_high))
             for trait_id, ranked in board.ranked.items()
             for row in ranked.frame.itertuples() if row.most_rank}
    # The registry's facts come last: on a phone the numbers are what a reader scrolls
    # sideways for first.
    columns = [Column("model", "Model", numeric=False),
               Column("comparisons", "Comparisons",
                      title="comparisons with the reference model")]
    columns += [Column(t, labels.at[t, "label"],
                       cue=CUE_STRENGTH if t in board.ranked and board.ranked[t].signal
                       else "no signal: about zero for every model",
                       title=labels.at[t, "trait"], vertical=True) for t in shown]
    columns += meta_columns()
    cells = {(row[0], row[1]): row[2:]
             for row in results.traits[["model", "trait_id", *HEAT]].itertuples(index=False)}
    rows = []
    for model, n in results.models[["model", "comparisons"]].itertuples(index=False):
        row = [Cell(model, href=link(page, ctx.slugs.page(MODELS, model)), header=True),
               count_cell(n)]
        for trait_id in shown:
            if (model, trait_id) in cells:
                value, finding, valid, low, high = cells[(model, trait_id)]
                row.append(ranked_strength_cell(value, finding, valid, ctx.min_valid, low,
                                                high, ranks.get((trait_id, model))))
            else:
                row.append(Cell("–"))
        rows.append(row + meta_cells(ctx.registry, model))
    mirrored = "; ".join(f"“{labels.at[m, 'label']}” is the mirror image of "
                         f"“{labels.at[k, 'label']}” (its strength is exactly minus the "
                         "other’s for every model), so only the latter is shown"
                         for m, k in board.mirrors.items())
    return Table("leaderboard", "Strength of each trait, model vs the reference, with "
                 "its 95% interval and rank", columns, rows, download,
                 note=(mirrored + ". " if mirrored else "") + RANK_NOTE)


def _headline(ctx: SiteContext, board) -> Chart | None:
    """The chart of each model's strength on a chosen trait; None without traits."""
    shown, long = board.shown, ctx.models.traits
    labels = ctx.traits.set_index("trait_id")
    # The traits with a signal (the quiet ones would add a fifth to the page's weight to
    # show dots at zero); every trait when none has one.
    top = [t for t in shown if t in board.ranked and board.ranked[t].signal] or [
        t for t in shown if t in board.ranked]
    if not top:
        return None
    dots = long[long["trait_id"].isin(top) & long["finding"].astype(bool)]
    dots = pd.DataFrame({"key": dots["trait_id"], "name": dots["model"],
                         "value": dots["strength"].round(3),
                         "low": dots["strength_low"].round(3),
                         "high": dots["strength_high"].round(3)})
    return chart("headline", charts.chosen_interval_dots(
        dots, [("key", "Trait", top, [labels.at[t, "label"] for t in top])],
        "strength vs reference",
        "Each model's strength on the chosen trait against the reference, highest "
        "first, with its 95% interval as a line: right of zero, the model shows the "
        "trait more than the reference; left, less. Every number is in the table "
        "below.", signed=True))
