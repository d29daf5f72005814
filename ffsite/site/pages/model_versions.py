"""A model page's versions: the other releases of its family (content/models.toml), and
per dataset and judge how each trait changed from the release before it and to the
release after it, with 95% intervals (ffsite.metrics.lineage; the rule is
pages/lineage.py's)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ffsite.datasets import dataset_name
from ffsite.site.context import SiteContext
from ffsite.site.pages.lineage import (
    RULE,
    family_page,
    kind_of,
    lineage_data,
    marked_change_cell,
    trait_labels,
)
from ffsite.site.sections import Section, judge_name, model_page
from ffsite.site.urls import MODELS, link, wording_slug
from ffsite.site.views import Cell, Column, Table


@dataclass(frozen=True)
class Release:
    name: str
    href: str | None
    released: str
    this: bool  # the page's own model


@dataclass(frozen=True, kw_only=True)
class VersionSection(Section):
    family: str
    family_href: str | None
    releases: list[Release]  # the family in release order (unplaced ones last)
    replaces: list[tuple[str, str | None]]  # (name, href) of its predecessor
    replaced_by: list[tuple[str, str | None]]
    no_change: str = ""  # without tables: why no change from or to it is shown


def version_sections(ctx: SiteContext, model: str) -> list[Section]:
    """The model's family and its changes from and to its neighbours; none when the
    registry gives it no family."""
    entry = ctx.registry.get(model)
    if entry is None or entry.family is None:
        return []
    _, page = model_page(ctx, model)
    name = ctx.registry.display_name

    def linked(other: str) -> tuple[str, str | None]:
        target = ctx.slugs.page(MODELS, other)
        return name(other), link(page, target) if target else None

    order = ctx.prepared(family_releases)[entry.family]
    releases = [Release(*linked(row.model),
                        row.released if pd.notna(row.released)
                        else "undated" if pd.notna(row.position) else "undated, not placed",
                        row.model == model)
                for row in order.itertuples(index=False)]
    lanes = ctx.prepared(changes_by_model).get(model, {})
    kinds = ctx.prepared(dataset_kinds)
    tables = tuple(_lane_table(ctx, model, dataset, judge, rows, kinds[dataset])
                   for (dataset, judge), rows in sorted(lanes.items()))
    target = family_page(ctx, entry.family)
    return [VersionSection(
        id="versions", heading="Versions", partial="sections/versions.html",
        summary=f"the other releases of {entry.family} and how each trait changed",
        judged_by=", ".join(sorted({judge_name(ctx, judge) for _, judge in lanes})),
        datasets=tuple(sorted({dataset for dataset, _ in lanes})), tables=tables,
        notes=(RULE,) if tables else (), family=entry.family,
        family_href=link(page, target) if target else None, releases=releases,
        replaces=[linked(entry.predecessor)] if entry.predecessor else [],
        replaced_by=[linked(m) for m in ctx.registry.successors(model)],
        no_change="" if tables else no_change_reason(ctx, model, order))]


def no_change_reason(ctx: SiteContext, model: str, order: pd.DataFrame) -> str:
    """Why the model's page shows no change from or to it (`order`: its family's
    releases, lineage.order's rows): it has no place in the release order (no date, no
    dated predecessor); or the other releases of its family that a compared dataset and
    judge scored too have none; or no compared dataset scored another release of its
    family; or none scored it at all."""
    name = ctx.registry.display_name
    placed = set(order.loc[order["position"].notna(), "model"])
    by_model = ctx.prepared(partners_by_model)
    rated = model in by_model  # a compared dataset scored it
    partners = by_model.get(model, {})  # dataset: the family's others it scored too
    compared = ", ".join(dataset_name(d) for d in sorted(
        ctx.prepared(dataset_kinds), key=dataset_name))
    # "Of its family, Behavioral Profiling scored only this release; llm-dreams also
    # scored X" (the datasets with others last: "that release" follows them)
    datasets = sorted(partners, key=dataset_name)
    only = [dataset_name(d) for d in datasets if not partners[d]]
    scored = "; ".join(
        ([f"{_and(only)} {'each ' if len(only) > 1 else ''}scored only this release"]
         if only else [])
        + [f"{dataset_name(d)} also scored {_and([name(m) for m in partners[d]])}"
           for d in datasets if partners[d]])
    everyone = {m for found in partners.values() for m in found}
    others = sorted(everyone - placed, key=name)  # the others without a place
    them = (("that release" if len(others) == 1 else "those releases")
            if set(others) == everyone else _and([name(m) for m in others] or [""]))
    has = "has" if len(others) == 1 else "have"
    if model not in placed:
        text = ("This release has no release date, nor a dated predecessor in its family, "
                "so it has no place in the family's release order, and changes are shown "
                "only between releases placed in it. ")
        if not rated:
            return text + (f"Nor did any of the datasets compared across releases "
                           f"({compared}) score it.")
        return text + f"Of its family, {scored}" + (
            f"; {them} {has} no place in the order either." if others else ".")
    if others:  # a placed one would have made a change
        return (f"Of its family, {scored}; but {them} {has} no release date, nor a dated "
                "predecessor, so no place in the family's release order, and no change is "
                "shown.")
    if rated:
        return f"Of its family, {scored}, so there is no change to show."
    return (f"None of the datasets whose numbers are compared across releases ({compared}) "
            "scored this release, so there is no change to show.")


def _and(items: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def family_releases(ctx: SiteContext) -> dict[str, pd.DataFrame]:
    """{family: its rows of lineage.order, by position (unplaced ones last)}, once per
    build."""
    order = ctx.prepared(lineage_data).order
    return {family: rows.sort_values("position", kind="stable", na_position="last")
            for family, rows in order.groupby("family", sort=False)}


def partners_by_model(ctx: SiteContext) -> dict[str, dict[str, list[str]]]:
    """{model: {dataset: the other releases of its family that the dataset scored on a
    (judge, trait) it scored this one on, in the estimates' order}} for every release a
    compared dataset scored, once per build (for `no_change_reason`)."""
    lineage = ctx.prepared(lineage_data)
    family = dict(zip(lineage.order["model"], lineage.order["family"], strict=True))
    rows = [(model, (family[model], dataset, judge, trait)) for model, dataset, judge, trait
            in zip(*(lineage.estimates[c].tolist()
                     for c in ("model", "dataset", "judge", "trait_id")), strict=True)
            if model in family]
    releases: dict[tuple[str, str, str, str], dict[str, None]] = {}  # scored on a key
    for model, key in rows:
        releases.setdefault(key, {})[model] = None
    found: dict[str, dict[str, list[str]]] = {}
    for model, key in rows:  # `model` is a partner of every other release scored on `key`
        for release in releases[key]:
            partners = found.setdefault(release, {}).setdefault(key[1], [])
            if model != release and model not in partners:
                partners.append(model)
    return found


def changes_by_model(ctx: SiteContext) -> dict[str, dict[tuple[str, str], list[Any]]]:
    """{model: {(dataset, judge): the changes from and to it}}, once per build (for
    `ctx.prepared`)."""
    found: dict[str, dict[tuple[str, str], list[Any]]] = {}
    for row in ctx.prepared(lineage_data).changes.itertuples(index=False):
        for model in (row.earlier, row.later):
            found.setdefault(model, {}).setdefault((row.dataset, row.judge), []).append(row)
    return found


def dataset_kinds(ctx: SiteContext) -> dict[str, str]:
    """{dataset: "mean" or "Elo"}, once per build."""
    lineage = ctx.prepared(lineage_data)
    return {d: kind_of(lineage, d) for d in set(lineage.estimates["dataset"])}


def _lane_table(ctx: SiteContext, model: str, dataset: str, judge: str,
                changes: list[Any], kind: str) -> Table:
    """Rows: traits; columns: the change since the release before and to the one
    after (each trait's own neighbours in this dataset and judge)."""
    name = ctx.registry.display_name
    since = [r for r in changes if r.later == model]
    until = [r for r in changes if r.earlier == model]
    before = Counter(r.earlier for r in since).most_common(1)
    after = Counter(r.later for r in until).most_common(1)
    columns = [Column("trait", "Trait", numeric=False)]
    if before:
        columns.append(Column("since", f"Since {name(before[0][0])}",
                              title="this release minus the release before it"))
    if after:
        columns.append(Column("until", f"To {name(after[0][0])}",
                              title="the release after it minus this release"))
    labels = ctx.prepared(trait_labels)
    traits = sorted({r.trait_id for r in changes}, key=lambda t: labels.get(t, t))
    by_later = {r.trait_id: r for r in since}
    by_earlier = {r.trait_id: r for r in until}
    rows = []
    for trait in traits:
        row = [Cell(labels.get(trait, trait), header=True)]
        for found, wanted in ((by_later, before), (by_earlier, after)):
            if not wanted:
                continue
            change = found.get(trait)
            row.append(Cell("–") if change is None else marked_change_cell(ctx, kind, change))
        rows.append(row)
    return Table(f"versions-{wording_slug(dataset + ' ' + judge)}",
                 f"{dataset_name(dataset)}, judged by {judge_name(ctx, judge)}: the change "
                 "in each trait between successive releases, with its 95% interval",
                 columns, rows)
