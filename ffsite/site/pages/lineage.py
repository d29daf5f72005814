"""Lineage: how each model family's traits changed from one release to the next.

`lineage.html` lists the families (`family` in content/models.toml) with their releases;
`lineage/<family>.html` shows, per dataset and judge (or declared panel), each trait over
the family's releases in release order: a chart with a menu of traits, the change
between successive releases with its 95% interval (marked ▲/▼ where the interval
excludes 0) and every release's own number.  The numbers and the rule are
ffsite.metrics.lineage's; model pages show a model's neighbours (model_versions.py) and
the home page and the index the largest real changes (`shifts_tables`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ffsite.datasets import BASELINE, UNITS, dataset_name
from ffsite.metrics import results
from ffsite.metrics.lineage import PAIRED, Lineage, largest_changes
from ffsite.site import charts
from ffsite.site.context import SiteContext
from ffsite.site.judging import judge_badge, self_judges
from ffsite.site.output import Download
from ffsite.site.render import number, signed
from ffsite.site.sections import judge_name
from ffsite.site.urls import MODELS, link, page_path, wording_slug
from ffsite.site.views import (
    FLOOR_NOTE,
    Cell,
    Chart,
    Column,
    Table,
    below_floor,
    chart,
    elo_cell,
    estimate_cell,
    sort_value,
)

LINEAGE = "lineage"  # the index page, and the folder of the family pages
RULE = ("▲/▼: a real change, its 95% interval excluding 0. The interval is paired where "
        "both releases answered the same prompts and their means are bootstrapped over "
        "them, or where both are rated in one Bradley–Terry fit (the same resamples or "
        "refits for both), else made from the two releases' own intervals as if "
        "independent (MOVER, Zou & Donner 2008), which is wide when they share prompts. "
        "Each interval is for one change on its own: of many changes that "
        "are truly zero, about one in 20 would still be marked.")
SHIFTS = 3  # the largest real changes listed per dataset and judge (home, lineage.html)


def lineage_data(ctx: SiteContext) -> Lineage:
    """Every family's releases, estimates and changes, computed once per build (for
    `ctx.prepared`).  Means are the baseline condition's in a dataset with conditions
    (Behavioral Profiling), the only ones elsewhere; Elo ratings the pairwise
    datasets'."""
    present = set(ctx.score_results.means["dataset"])
    judges = ctx.traits.drop_duplicates("trait_id").set_index("trait_id")["judge"]
    return results.lineage_results(
        ctx.score_results.means, {d: p.ratings for d, p in ctx.pairwise.items()}, judges,
        ctx.registry, scores=ctx.scores, paired_datasets=sorted(present - set(UNITS)),
        refits={d: p.refits for d, p in ctx.pairwise.items() if p.refits},
        n_bootstrap=ctx.config.rating_resamples)


def family_slugs(ctx: SiteContext) -> dict[str, str]:
    """{family: page name}: a slug of its name, unique ignoring case (a clash adds a
    number in the families' order)."""
    slugs: dict[str, str] = {}
    for family in sorted(ctx.registry.families()):
        slug = wording_slug(family) or "family"
        taken = {s.lower() for s in slugs.values()}
        base, n = slug, 2
        while slug.lower() in taken:
            slug, n = f"{base}-{n}", n + 1
        slugs[family] = slug
    return slugs


def family_page(ctx: SiteContext, family: str) -> str | None:
    """The path of a family's lineage page (None: it has none: no dataset scored two of
    its releases)."""
    shown = ctx.prepared(shown_families)
    return page_path(LINEAGE, ctx.prepared(family_slugs)[family]) if family in shown else None


def shown_families(ctx: SiteContext) -> list[str]:
    """The families with a page: some dataset and judge scored two of their releases."""
    return sorted(set(ctx.prepared(lineage_data).changes["family"]))


def kind_of(lineage: Lineage, dataset: str) -> str:
    """"mean" or "Elo": what the dataset's numbers are."""
    kinds = lineage.estimates.drop_duplicates("dataset").set_index("dataset")["kind"]
    return str(kinds.get(dataset, "mean"))


def trait_labels(ctx: SiteContext) -> dict[str, str]:
    """{trait id: label}, once per build (for `ctx.prepared`)."""
    return dict(ctx.labels)


def value_cell(kind: str, value: float, low: float, high: float) -> Cell:
    if pd.isna(value):
        return Cell("–")
    if kind == "Elo":
        return elo_cell(value, low, high)
    return estimate_cell(value, low, high)


def change_text(value: float, digits: int) -> str:
    """`signed(value, digits)`, except that a number which is not 0 but rounds to 0 at
    `digits` shows its sign and first significant digit ("-0.002", "+0.0004"; an Elo
    change of 0.3: "+0.3"): a 95% bound that barely misses 0 never reads "+0.00" beside
    a mark saying the interval excludes 0, nor a negative one with a "+"."""
    text = signed(value, digits)
    if pd.isna(value) or value == 0 or float(text) != 0:
        return text
    for more in range(digits + 1, 18):
        if round(abs(float(value)), more) != 0:
            return f"{float(value):+.{more}f}"
    return ("-" if value < 0 else "+") + f"{0:.{digits}f}"


def change_interval(low: float, high: float, digits: int) -> str | None:
    """A change's 95% interval, "-2.48 to -0.002": `interval_text`'s signed form with
    each bound as `change_text` shows it (None if unknown)."""
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return None
    return f"{change_text(low, digits)} to {change_text(high, digits)}"


def change_cell(kind: str, row, earlier: str, later: str) -> Cell:
    """A change with its 95% interval in view, marked ▲/▼ (and coloured) when real."""
    digits = 0 if kind == "Elo" else 2
    interval = change_interval(row.ci_low, row.ci_high, digits)
    real = bool(row.real)
    arrow = ("▲ " if row.change > 0 else "▼ ") if real else ""
    verdict = ("real: its 95% interval excludes 0" if real
               else "not distinguishable from 0 (its 95% interval includes 0)")
    how = "paired" if row.method == PAIRED else "independent"
    shown = change_text(row.change, digits)
    return Cell(arrow + shown, sort_value(row.change),
                css=("hp2" if row.change > 0 else "hn2") if real else None,
                interval=interval,
                title=f"{later} minus {earlier}: {shown}, 95% interval {interval} ({how}); "
                      f"{verdict}")


def floors(ctx: SiteContext) -> dict[tuple[str, str, str, str], tuple[int, int]]:
    """{(dataset, judge, trait, model): (scores under the rubric's floor, scores)} of the
    means the lineage compares (at baseline where there are conditions)."""
    means = ctx.score_results.means
    own = means[means["condition"].isin([BASELINE, ""]).to_numpy()
                & (means["below_rubric_floor"].to_numpy() > 0)]
    return {(r.dataset, r.judge, r.trait_id, r.model): (int(r.below_rubric_floor), int(r.n))
            for r in own.itertuples(index=False)}


def change_floor(ctx: SiteContext, row) -> tuple[int, int]:
    """(scores under the rubric's floor, scores) behind a CHANGE_COLUMNS row: both
    releases' means' (0, 0) when neither has any under it."""
    found = ctx.prepared(floors)
    earlier, later = (found.get((row.dataset, row.judge, row.trait_id, m), (0, 0))
                      for m in (row.earlier, row.later))
    return earlier[0] + later[0], earlier[1] + later[1]


def marked_change_cell(ctx: SiteContext, kind: str, row) -> Cell:
    """`change_cell` of a CHANGE_COLUMNS row, marked "has 0s" when either release's mean
    rests on scores under the rubric's floor: a "real" change may be the defect's doing
    (Llama 3 to 3.1 70B on tribalism: 18 of the earlier one's 50 scores)."""
    name = ctx.registry.display_name
    cell = change_cell(kind, row, name(row.earlier), name(row.later))
    return below_floor(cell, *change_floor(ctx, row), what="change")


@dataclass(frozen=True)
class Lane:
    """One dataset and judge of a family: its releases, chart and tables."""

    id: str
    dataset: str
    dataset_name: str
    judge: str
    kind: str
    condition: str  # the means' condition ("baseline"), "" in a dataset without any
    releases: list[str]
    chart: Chart
    changes: Table
    values: Table
    n_real: int
    n_changes: int
    paired: bool
    self_judges: list[str]  # releases that are also one of the dataset's judges
    anchor: str = ""  # the model an Elo lane's ratings fix at 1000


def build(ctx: SiteContext) -> None:
    lineage = ctx.prepared(lineage_data)
    index = page_path(LINEAGE)
    changes = lineage.changes
    # How many of the two releases' scores lie under the rubric's floor (the pages mark
    # those changes "has 0s").
    below = [change_floor(ctx, r)[0] for r in changes.itertuples(index=False)]
    changes_download = ctx.output.data("lineage-changes", changes.assign(
        below_rubric_floor=np.array(below, dtype=np.int64)), "Lineage: every change between "
        "successive releases, with its 95% interval", index)
    releases = lineage.order.merge(lineage.estimates, on="model")
    releases_download = ctx.output.data("lineage-releases", releases, "Lineage: every "
                                         "family's releases in order, with their numbers",
                                         index)
    shown = ctx.prepared(shown_families)
    families = ctx.registry.families()
    rows = []
    for family in sorted(families, key=str.lower):
        page = family_page(ctx, family)
        own = lineage.changes[lineage.changes["family"] == family]
        rows.append([Cell(family, href=link(index, page) if page else None, header=True),
                     Cell(str(len(families[family])), len(families[family])),
                     Cell(", ".join(sorted({dataset_name(d) for d in own["dataset"]}))
                          or "no dataset scored two of its releases"),
                     Cell(str(int(own["real"].sum())), int(own["real"].sum()))])
    table = Table("families", "Model families and their releases", [
        Column("family", "Family", numeric=False),
        Column("releases", "Releases", title="entries of the family in the registry"),
        Column("datasets", "Compared in", numeric=False,
               title="datasets that scored two or more of its releases"),
        Column("real", "Real changes", title="changes between successive releases whose "
               "95% interval excludes 0")], rows, changes_download)
    ctx.output.page(index, "lineage.html", section=index, table=table, shift_rule=RULE,
                    shifts_prose=False,
                    shifts=shifts_tables(ctx, index),
                    downloads=[changes_download, releases_download],
                    description="How each model family's judged personality changed from "
                                "one release to the next, per dataset and judge, with 95% "
                                "intervals.")
    for family in ctx.progress.items("lineage pages", shown):
        family_lineage_page(ctx, lineage, family, [changes_download, releases_download])


def family_lineage_page(ctx: SiteContext, lineage: Lineage, family: str,
                        downloads: list[Download]) -> None:
    page = family_page(ctx, family)
    order = lineage.order[lineage.order["family"] == family].sort_values(
        "position", kind="stable", na_position="last")
    name = ctx.registry.display_name
    rows = []
    for row in order.itertuples(index=False):
        target = ctx.slugs.page(MODELS, row.model)
        rows.append([Cell("–" if pd.isna(row.position) else str(int(row.position) + 1),
                          None if pd.isna(row.position) else int(row.position)),
                     Cell(name(row.model), href=link(page, target) if target else None,
                          header=True),
                     Cell(row.released if pd.notna(row.released) else "unknown",
                          row.released if pd.notna(row.released) else ""),
                     Cell(name(row.predecessor) if pd.notna(row.predecessor) else "–")])
    releases = Table("releases", f"The releases of {family}, in order", [
        Column("order", "#", title="place in release order (– : no release date, so not "
                                   "placed)"),
        Column("model", "Release", numeric=False), Column("released", "Released",
                                                          numeric=False),
        Column("replaces", "Replaces", numeric=False)], rows)
    own = lineage.changes[lineage.changes["family"] == family]
    lanes = [lane(ctx, lineage, family, page, dataset, judge, part)
             for (dataset, judge), part in own.groupby(["dataset", "judge"], sort=True)]
    ctx.output.page(page, "lineage_family.html", section=page_path(LINEAGE), family=family,
                    releases=releases, lanes=lanes, rule=RULE, downloads=downloads,
                    charts=[lane.chart for lane in lanes],
                    description=f"{family}: how each judged trait changed from one release "
                                "to the next, per dataset and judge, with 95% intervals.",
                    unplaced=[name(m) for m in order.loc[order["position"].isna(), "model"]])


def lane(ctx: SiteContext, lineage: Lineage, family: str, page: str, dataset: str,
         judge: str, changes: pd.DataFrame) -> Lane:
    """One dataset and judge of a family's page."""
    kind = kind_of(lineage, dataset)
    position = lineage.order[lineage.order["family"] == family].set_index("model")["position"]
    estimates = lineage.estimates[(lineage.estimates["dataset"] == dataset)
                                  & (lineage.estimates["judge"] == judge)
                                  & lineage.estimates["model"].isin(
                                      position.dropna().index)]
    releases = sorted(set(estimates["model"]), key=lambda m: position[m])
    labels = ctx.prepared(trait_labels)
    traits = sorted(set(estimates["trait_id"]), key=lambda t: labels.get(t, t))
    labels = {t: labels.get(t, t) for t in traits}
    name = ctx.registry.display_name
    value = {(r.trait_id, r.model): (r.value, r.ci_low, r.ci_high)
             for r in estimates.itertuples(index=False)}
    missing = (float("nan"),) * 3
    # Means with scores below the rubric's floor (a judge of the panel answered 0) are
    # marked here as everywhere else (the data's known defect, shown, not hidden).
    floor = {(t, m): counts for (d, j, t, m), counts in ctx.prepared(floors).items()
             if d == dataset and j == judge} if kind == "mean" else {}
    values = Table(f"values-{wording_slug(dataset)}", f"Each release's {kind} per trait, "
                   "with its 95% interval",
                   [Column("trait", "Trait", numeric=False),
                    *[Column(f"r{i}", name(m)) for i, m in enumerate(releases)]],
                   [[Cell(labels[t], header=True),
                     *[below_floor(value_cell(kind, *value.get((t, m), missing)),
                                   *floor.get((t, m), (0, 0))) for m in releases]]
                    for t in traits],
                   note=FLOOR_NOTE if any((t, m) in floor for t in traits
                                          for m in releases) else "")
    steps = list(zip(releases, releases[1:], strict=False))
    by_pair = {(r.trait_id, r.earlier, r.later): r for r in changes.itertuples(index=False)}
    change_rows = []
    for t in traits:
        cells = [Cell(labels[t], header=True)]
        for earlier, later in steps:
            if (t, earlier, later) in by_pair:
                cells.append(marked_change_cell(ctx, kind, by_pair[(t, earlier, later)]))
            else:
                cells.append(Cell("–"))
        change_rows.append(cells)
    changes_table = Table(f"changes-{wording_slug(dataset)}", "The change from each release "
                          "to the next, with its 95% interval",
                          [Column("trait", "Trait", numeric=False),
                           *[Column(f"c{i}", f"→ {name(b)}", title=f"{name(b)} minus "
                                    f"{name(a)}, the release before it")
                             for i, (a, b) in enumerate(steps)]], change_rows,
                          note=RULE + (" " + FLOOR_NOTE if any(
                              (t, m) in floor for t in traits for m in releases) else ""))
    return Lane(id=wording_slug(f"{dataset} {judge}"), dataset=dataset,
                dataset_name=dataset_name(dataset), judge=judge_name(ctx, judge), kind=kind,
                condition=next((str(c) for c in estimates["condition"] if c), ""),
                releases=releases,
                chart=lane_chart(ctx, family, dataset, judge, kind, estimates, changes,
                                 traits, labels, position),
                changes=changes_table, values=values, n_real=int(changes["real"].sum()),
                n_changes=len(changes), paired=bool((changes["method"] == PAIRED).any()),
                self_judges=[name(m) for m in releases
                             if (dataset, m) in ctx.prepared(self_judges)],
                anchor=name(ctx.pairwise[dataset].anchor) if kind == "Elo" and (
                    dataset in ctx.pairwise and ctx.pairwise[dataset].anchor) else "")


def lane_chart(ctx: SiteContext, family: str, dataset: str, judge: str, kind: str,
               estimates: pd.DataFrame, changes: pd.DataFrame, traits: list[str],
               labels: dict[str, str], position: pd.Series) -> Chart:
    """The family's releases on a chosen trait, a dot per release with its interval."""
    later = {(r.trait_id, r.later): (r.change, bool(r.real))
             for r in changes.itertuples(index=False)}
    keys = list(zip(estimates["trait_id"], estimates["model"], strict=True))
    change = [later.get(k, (float("nan"), False))[0] for k in keys]
    real = [later.get(k, (float("nan"), False))[1] for k in keys]
    frame = pd.DataFrame({
        "key": estimates["trait_id"].to_numpy(),
        "name": [ctx.registry.display_name(m) for m in estimates["model"]],
        "order": position.reindex(estimates["model"]).to_numpy(float),
        "value": estimates["value"].round(3).to_numpy(),
        "low": estimates["ci_low"].round(3).to_numpy(),
        "high": estimates["ci_high"].round(3).to_numpy(),
        "change": pd.Series(change, dtype=float).round(3).to_numpy(),
        "mark": ["" if not r else ("up" if c > 0 else "down")
                 for r, c in zip(real, change, strict=True)]})
    title = "Elo" if kind == "Elo" else "mean score"
    return chart(f"lineage-{wording_slug(dataset + ' ' + judge)}", charts.release_dots(
        frame, traits, [labels[t] for t in traits], title,
        f"{family} in {dataset_name(dataset)}, judged by {judge_name(ctx, judge)}: the "
        f"chosen trait's {title} for each release, earliest at the top, with its 95% "
        "interval as a line; a blue dot went up and a red one down from the release "
        "before by a real change (its interval excludes 0), a grey one did not. The "
        "tables below have every number.", value_format=".0f" if kind == "Elo" else ".2f"))


def shifts_tables(ctx: SiteContext, page: str) -> list[Table]:
    """The home and lineage pages' summary: the largest real changes between successive
    releases, a table per dataset and judge (sizes compare only within one: their numbers
    share a scale; and each table names its judge once, above its numbers)."""
    lineage = ctx.prepared(lineage_data)
    top = largest_changes(lineage.changes, SHIFTS)
    name = ctx.registry.display_name
    labels = ctx.prepared(trait_labels)
    tables = []
    for (dataset, judge), own in top.groupby(["dataset", "judge"], sort=False):
        kind = kind_of(lineage, dataset)
        rows = []
        for row in own.itertuples(index=False):
            target = family_page(ctx, row.family)
            rows.append([
                Cell(row.family, href=link(page, target) if target else None, header=True),
                Cell(labels.get(row.trait_id, row.trait_id)),
                marked_change_cell(ctx, kind, row),
                Cell(f"{number(row.earlier_value, 0 if kind == 'Elo' else 2)} → "
                     f"{number(row.later_value, 0 if kind == 'Elo' else 2)}"
                     + (" Elo" if kind == "Elo" else ""), css="line"),
                # (on one line: a row as tall as two names wrapped in a phone's column
                # pushed the next rows' numbers out of the first screen)
                Cell(f"{name(row.earlier)} → {name(row.later)}", css="line",
                     **releases_marks(ctx, dataset, (row.earlier, row.later)))])
        anchor = (ctx.pairwise[dataset].anchor if kind == "Elo" and dataset in ctx.pairwise
                  else None)
        tables.append(Table(
            f"release-shifts-{wording_slug(dataset + ' ' + judge)}",
            f"{dataset_name(dataset)}, judged by {judge_name(ctx, judge)}", [
                Column("family", "Family", numeric=False),
                Column("trait", "Trait", numeric=False),
                Column("change", "Change", title="later minus earlier, with its 95% interval"),
                Column("values", "Before → after", numeric=False),
                Column("releases", "From → to", numeric=False)], rows,
            note=(f"Elo: ffsite's Bradley–Terry rating of the judge's verdicts, "
                  f"{name(anchor)} fixed at 1000 (not the scale the dataset publishes)."
                  if anchor else "")))
    return tables


def releases_marks(ctx: SiteContext, dataset: str, releases: tuple[str, ...]
                   ) -> dict[str, str]:
    """The Cell fields marking releases that judged `dataset` (or are a judge's variant,
    or were contributed): the marks of each, named; {} when none has one."""
    marked = [(name, found) for name, found in (
        (ctx.registry.display_name(m), judge_badge(ctx, dataset, m)) for m in releases)
        if found]
    if not marked:
        return {}
    return {"badge": " · ".join(dict.fromkeys(found["badge"] for _, found in marked)),
            "badge_title": "; ".join(f"{name}: {found['badge_title']}"
                                     for name, found in marked)}
