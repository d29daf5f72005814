"""Compare: any two models side by side, on every dataset and judge they share.

A section per dataset and judge (`compare_data.sections`): judged scores (means, paired
by prompt where the models answered the same prompts), pairwise criteria (Bradley-Terry
Elo, paired by bootstrap refit), text statistics (strength against the reference,
paired by prompt).  The page carries an index (every model, every section and its
models); each section's numbers are a JSON file that compare.js fetches when the two
models named in the URL (?a=...&b=...) share it, and draws its table and a chart of the
differences with its own code (no chart library).  Without them, the two models that
share the most sections.
"""

from __future__ import annotations

import base64
import json

import numpy as np

from ffsite.site.compare_data import Section, sections
from ffsite.site.context import SiteContext
from ffsite.site.judging import self_judges, variant_judges
from ffsite.site.pages.home import leaderboard_traits
from ffsite.site.render import json_script
from ffsite.site.urls import page_path

FOLDER = "data/compare"


def build(ctx: SiteContext) -> None:
    page = page_path("compare")
    found = sections(ctx)
    models = sorted({m for s in found for m in s.models},
                    key=lambda m: (ctx.registry.display_name(m).lower(), m))
    code = {m: k for k, m in enumerate(models)}
    judging_itself = self_judges(ctx)  # (dataset, model) -> the judge it is
    variants = ctx.prepared(variant_judges)
    index = {"models": models, "names": [ctx.registry.display_name(m) for m in models],
             "sections": []}
    for number, section in enumerate(found):
        path = f"{FOLDER}/s{number}.json"
        ctx.output.file(path, json.dumps(section_file(section), ensure_ascii=False,
                                         separators=(",", ":"), allow_nan=False))
        index["sections"].append({
            "id": section.id, "title": section.title, "what": section.what,
            "judge": section.judge, "unit": section.unit, "file": path,
            "signed": section.signed, "digits": section.digits,
            "paired": section.halfwidth is not None, "note": section.note,
            "models": [code[m] for m in section.models],
            # Models that are judges of this section's numbers: they rated themselves.
            "selfJudged": [code[m] for m in section.models
                           if (section.dataset, m) in judging_itself],
            # Variants of a judge (registry's variant_of): its weights wrote the answers.
            "variantJudged": [code[m] for m in section.models
                              if (section.dataset, m) in variants]})
    first, second = default_pair(found, models)
    index["first"], index["second"] = first, second
    board = ctx.prepared(leaderboard_traits)
    mirrored = [(ctx.labels[m], ctx.labels[k]) for m, k in board.mirrors.items()]
    ctx.output.page(page, "compare.html", section=page, index=json_script(index),
                    models=list(zip(models, index["names"], strict=True)), first=first,
                    second=second, sections=found, charts=[], mirrored=mirrored)


def section_file(section: Section) -> dict:
    """One section's numbers as compare.js reads them: the traits, each model's value
    and 95% interval (rows in the section's model order), and, where the data pairs the
    models, every pair's half-width of the interval of their difference, packed."""
    def rounded(values: np.ndarray) -> list[list[float | None]]:
        return [[None if v != v else round(float(v), section.digits + 2) for v in row]
                for row in values]
    document = {"traits": [[label, slug] for _, label, slug in section.traits],
                "value": rounded(section.value), "low": rounded(section.low),
                "high": rounded(section.high), "scale": section.scale}
    if section.halfwidth is not None:
        n = len(section.models)
        upper = np.triu_indices(n, k=1)
        # Rounded before rounding up, so a last-bit difference never moves a bound.
        units = np.ceil(np.round(np.nan_to_num(section.halfwidth[:, upper[0], upper[1]],
                                               nan=0.0) * section.scale, 6))
        document["halfwidth_bytes"], document["halfwidth"] = packed(units.astype(np.int64))
    return document


def packed(values: np.ndarray) -> tuple[int, list[str]]:
    """(bytes per value, one base64 string per row) of non-negative integers, little
    endian: a third of the size of a JSON list of numbers (the page holds every pair)."""
    width = 1 if values.max(initial=0) < 2**8 else 2
    if values.max(initial=0) >= 2**16:
        values = np.minimum(values, 2**16 - 1)
    kind = "<u1" if width == 1 else "<u2"
    return width, [base64.b64encode(row.astype(kind).tobytes()).decode("ascii")
                   for row in values]


def default_pair(found: list[Section], models: list[str]) -> tuple[str | None, str | None]:
    """The two models that share the most sections; among those, the pair whose shared
    differences are largest against their intervals (first in the models' order on a
    tie)."""
    if len(models) < 2:
        return (models + [None, None])[0], None
    where = {m: k for k, m in enumerate(models)}
    shared = np.zeros((len(models), len(models)))
    for section in found:
        codes = np.array([where[m] for m in section.models])
        shared[np.ix_(codes, codes)] += 1
    np.fill_diagonal(shared, -1)
    most = shared.max()
    score = np.zeros_like(shared)
    for section in found:
        codes = np.array([where[m] for m in section.models])
        score[np.ix_(codes, codes)] += section.separation()
    score = np.where(shared == most, score, -np.inf)
    np.fill_diagonal(score, -np.inf)
    first, second = np.unravel_index(int(np.argmax(score)), score.shape)
    first, second = sorted((int(first), int(second)))
    return models[first], models[second]
