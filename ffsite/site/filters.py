"""Filters of model tables: organisation, open weights, release years and dataset.

Every table row whose header links to a model page carries that model's facts as codes
(`data-org="o3"`, `data-weights="open"`, `data-year="2025"`, `data-datasets="d0 d4"`;
templates/macros.html), and every page with such tables has a filter bar
(templates/filters.html) whose menus use the same codes.  The filtering itself is CSS
(`filters_css`, one generated stylesheet for the whole site): a rule per menu choice
hides the rows that do not match, so the menus work without JavaScript.  With it,
filters.js keeps the choices in the URL (`?org=Anthropic&weights=open&from=2024&to=2025&
dataset=EQ-Bench%203`), restores them from a shared link, says how many rows are left
and narrows compare's model menus.  Codes, not names, reach the stylesheet, so no text
from the data is ever written into CSS.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ffsite.datasets import dataset_name, is_apart
from ffsite.site.context import SiteContext
from ffsite.site.urls import MODELS, page_path


@dataclass(frozen=True)
class Facts:
    """What a model's rows carry: codes and the release year ("" when unknown)."""

    org: str
    weights: str  # "open", "closed" or ""
    year: str
    datasets: str  # codes, space-separated


@dataclass(frozen=True)
class FilterMenus:
    """The choices of the filter bar: (code, name) of every organisation and dataset,
    the release years, all as the site's models have them."""

    organisations: list[tuple[str, str]]
    years: list[str]
    datasets: list[tuple[str, str]]
    stylesheet: str  # the path of the generated stylesheet from the site's top


def model_datasets(ctx: SiteContext) -> dict[str, set[str]]:
    """{model id: the datasets with its numbers}: votes (either side) and scores.
    Numbers kept apart (`<dataset>@<how>`) are no dataset to filter by: pages that lead
    with a dataset's own numbers never name them."""
    found: dict[str, set[str]] = {}
    comparisons = ctx.annotations.comparisons
    for side in ("model_a", "model_b"):
        pairs = comparisons[["dataset", side]].dropna().drop_duplicates()
        for dataset, model in pairs.itertuples(index=False):
            if not is_apart(str(dataset)):
                found.setdefault(str(model), set()).add(str(dataset))
    responses = ctx.scores.responses[["dataset", "model"]].dropna().drop_duplicates()
    ids = ctx.registry.ids(responses["dataset"], responses["model"])
    for dataset, model in zip(responses["dataset"], ids, strict=True):
        if not is_apart(str(dataset)):
            found.setdefault(str(model), set()).add(str(dataset))
    return found


def build(ctx: SiteContext) -> None:
    """The facts of every model with a page, the menus and the stylesheet, for every
    page (`SiteOutput.globals`)."""
    entries = {model: ctx.registry.get(model) for model in ctx.slugs.models}
    organisations = sorted({e.organisation for e in entries.values() if e and e.organisation},
                           key=str.casefold)
    org_code = {name: f"o{n}" for n, name in enumerate(organisations)}
    in_datasets = model_datasets(ctx)
    datasets = sorted({d for found in in_datasets.values() for d in found},
                      key=lambda d: dataset_name(d).casefold())
    dataset_code = {name: f"d{n}" for n, name in enumerate(datasets)}
    facts, by_id = {}, {}
    for model, entry in entries.items():
        weights = "" if entry is None or entry.open_weights is None else (
            "open" if entry.open_weights else "closed")
        by_id[model] = facts[page_path(MODELS, ctx.slugs.models[model])] = Facts(
            org=org_code.get(entry.organisation, "") if entry and entry.organisation else "",
            weights=weights, year=(entry.released or "")[:4] if entry else "",
            datasets=" ".join(sorted(dataset_code[d] for d in in_datasets.get(model, ()))))
    years = sorted({f.year for f in facts.values() if f.year})
    css = filters_css(list(org_code.values()), years, list(dataset_code.values()))
    path = f"assets/filters-{hashlib.sha256(css.encode()).hexdigest()[:12]}.css"
    ctx.output.file(path, css)
    ctx.output.globals["row_facts"] = facts  # by the path of the model's page
    ctx.output.globals["model_id_facts"] = by_id  # by model id (compare's menus)
    ctx.output.globals["model_filter"] = FilterMenus(
        [(org_code[o], o) for o in organisations], years,
        [(dataset_code[d], dataset_name(d)) for d in datasets], path)


def filters_css(organisations: list[str], years: list[str], datasets: list[str]) -> str:
    """Rules that hide the model rows (tr.m) and compare's model choices (option.m) a
    choice of the filter bar leaves out.  A row whose fact is unknown is left out by a
    filter on that fact.  While any filter is on, folded rows are shown too."""
    hidden = ":is(tr.m, option.m)"

    def chosen(menu: str, value: str) -> str:
        return f'body:has(#f-{menu} option[value="{value}"]:checked)'

    rules = [f'{chosen("org", code)} {hidden}:not([data-org="{code}"])'
             for code in organisations]
    rules += [f'{chosen("weights", kind)} {hidden}:not([data-weights="{kind}"])'
              for kind in ("open", "closed")]
    for n, year in enumerate(years):
        later = "".join(f':not([data-year="{y}"])' for y in years[n:])
        earlier = "".join(f':not([data-year="{y}"])' for y in years[:n + 1])
        rules.append(f'{chosen("from", year)} {hidden}{later}')
        rules.append(f'{chosen("to", year)} {hidden}{earlier}')
    rules += [f'{chosen("dataset", code)} {hidden}:not([data-datasets~="{code}"])'
              for code in datasets]
    lines = ["/* ffsite: the model filters (generated by ffsite.site.filters). */"]
    lines += [rule + " { display: none; }" for rule in rules]
    lines.append("body:has(.model-filter option.any:not(:checked)) tbody.more "
                 "{ display: table-row-group; }")
    lines.append("body:has(.model-filter option.any:not(:checked)) .show-all-rows "
                 "{ display: none; }")
    return "\n".join(lines) + "\n"
