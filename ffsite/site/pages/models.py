"""A page per model id (ctx.slugs.models): the model's profile across all its datasets.

One page whatever each dataset calls the model (the registry, content/models.toml), made
of the sections its data has (ffsite/site/sections.py), from the providers of
MODEL_SECTIONS in order:
- judged personality from judge scores (Behavioral Profiling): baseline means with their
  rank, the strength against the other models from votes derived from the scores, and a
  compact summary of how the scores move under pressure;
- the Big Five from LMLPA's questionnaire ratings;
- EigenBench: how the models that judged with it rate it;
- judged pairs without the reference model (EQ-Bench 3): Elo and strength per criterion;
- versions: the other releases of its family and each trait's change from the release
  before and to the release after (pages/model_versions.py);
- the comparisons with the reference model (AlpacaEval): the traits the rule-based judge
  counts (text statistics, not personality), ratings, communication traits, example pairs.
A section appears only when the model has data for it.
"""

from __future__ import annotations

from functools import partial

from ffsite.datasets import DATASETS, dataset_name
from ffsite.site.context import SiteContext
from ffsite.site.forked import FORK_FROM
from ffsite.site.model_meta import meta_facts
from ffsite.site.pages.big_five import big_five_sections
from ffsite.site.pages.eigenbench_model import eigenbench_sections
from ffsite.site.pages.model_pairwise import pairwise_sections
from ffsite.site.pages.model_personality import personality_sections
from ffsite.site.pages.model_reference import reference_sections
from ffsite.site.pages.model_versions import version_sections
from ffsite.site.sections import Section, SectionProvider, model_page
from ffsite.site.side_by_side import build_side_by_side
from ffsite.site.urls import TRAITS, page_path

# What a model page shows, in order: each provider gives the model's sections of one kind
# (none when it has no such data).  A new kind of data adds its provider here; a dataset
# with a section of its own names it in its record (`Dataset.model_section`).
MODEL_SECTIONS: list[SectionProvider] = [
    personality_sections,
    *(d.hook("model_section") for d in DATASETS if d.model_section),
    big_five_sections,
    eigenbench_sections,
    pairwise_sections,
    version_sections,
    reference_sections,
]


def build(ctx: SiteContext) -> None:
    """Every model's page.  The first is built here: it asks for every table the pages
    share (waiting for those computed ahead, ffsite.site.ahead) and makes what the
    section providers prepare once; the others are then built two at a time, a forked
    child doing the second half (ffsite.site.side_by_side), in the same order."""
    models = sorted(ctx.slugs.models, key=str.lower)
    ctx.progress.step(f"model pages ({len(models)})")
    if not models:
        return
    _model_page(ctx, models[0])
    if len(models) <= FORK_FROM:  # a fork would cost more than it saves
        _model_pages(ctx, models[1:])
        return
    half = (len(models) + 2) // 2
    build_side_by_side(ctx, [partial(_model_pages, models=models[1:half]),
                             partial(_model_pages, models=models[half:])], [False, True])


def _model_pages(ctx: SiteContext, models: list[str]) -> None:
    for model in models:
        _model_page(ctx, model)


def _model_page(ctx: SiteContext, model: str) -> None:
    # Each provider's sections, kept apart: the page leaves a blank line after each
    # provider's (an empty one too), as the page did when each kind had its own slot.
    by_provider = [provider(ctx, model) for provider in MODEL_SECTIONS]
    sections = [s for found in by_provider for s in found]
    name = ctx.registry.display_name(model)
    facts = model_facts(ctx, model, [d for s in sections for d in s.datasets])
    # The datasets' own names and the note fold away under the main facts: the list of
    # datasets, each with its leading number, then fits a phone's first screen.
    folded = [(label, value) for label, value in facts
              if label == "Note" or label.startswith("Name in ")]
    ctx.output.page(model_page(ctx, model)[1], "model.html", section=page_path("index"),
                    model=model, name=name,
                    description=model_description(ctx, model, name, sections),
                    facts=[fact for fact in facts if fact not in folded], folded=folded,
                    sections=sections, by_provider=by_provider,
                    charts=[c for s in sections for c in s.charts],
                    trait_pages=ctx.slugs.pages(TRAITS))


def model_description(ctx: SiteContext, model: str, name: str,
                      sections: list[Section]) -> str:
    """The page's one-sentence description (search results, link previews): the model,
    who made it, and what the page has on it."""
    entry = ctx.registry.get(model)
    by = f" by {entry.organisation}" if entry is not None and entry.organisation else ""
    if not sections:
        return f"{name}{by}. None of the loaded datasets has numbers for this model."
    headings = [h[0].lower() + h[1:] if h[1:2].islower() else h
                for h in (s.heading for s in sections)]
    return f"{name}{by}. On this page: " + "; ".join(headings) + "."


def model_facts(ctx: SiteContext, model: str, datasets: list[str]) -> list[tuple[str, str]]:
    """(label, value) pairs of the page's header: what the registry knows about the model,
    and its name in each dataset it appears in (its id, when the registry has no entry)."""
    entry = ctx.registry.get(model)
    facts = [("Id", model), *meta_facts(entry)]
    aliases = dict(entry.aliases) if entry is not None else {}
    for dataset in datasets:
        aliases.setdefault(dataset, (model,))
    for dataset, names in sorted(aliases.items(), key=lambda item: dataset_name(item[0])):
        facts.append((f"Name in {dataset_name(dataset)}", ", ".join(names)))
    if entry is not None and entry.note:
        facts.append(("Note", entry.note))
    return facts
