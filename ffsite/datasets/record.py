"""A dataset's record: everything the rest of ffsite learns about one dataset.

Each dataset is a sub-package of `ffsite.datasets` that holds all there is to know about
it: this record (in its `__init__`), the reader of its published files (`reader.py`),
its importer and `ffsite import` command, its default-annotations step, its download
list (`files.toml`) and any page or model-page section of its own.  The record names
that code by hook, "module:attribute" relative to the dataset's package, imported only
when used: reading the list of datasets costs no pandas import, so
`ffsite --help` stays fast and a page that never shows a dataset never loads its code.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

# The condition of the unchanged prompts, by the scores format's convention (docs/format.md).
BASELINE = "baseline"
Texts = tuple[Mapping[str, str], Mapping[str, str]]  # (prompts by id, responses by id)


class Source(NamedTuple):
    """Where a dataset comes from, as the site credits it next to its numbers."""

    credit: str  # "Behavioral Profiling Framework"
    url: str  # the project's address
    licence: str  # "code Apache-2.0, data CC BY-NC 4.0"


@dataclass(frozen=True)
class Condition:
    """A condition a dataset's prompts were asked under besides its baseline."""

    id: str  # as annotation files spell it
    label: str  # as pages name it
    description: str  # what it adds to the baseline prompt, in a clause


@dataclass(frozen=True)
class Bearing:
    """Something of a dataset that bears on a question the site gives a page of its own
    (sycophancy): a condition its prompts were asked under, or one of its traits."""

    kind: Literal["condition", "trait"]
    id: str  # the condition's or the trait's id, as the dataset's files spell it
    why: str  # how it bears on the question, and what it does not show, in a sentence


@dataclass(frozen=True)
class Dataset:
    id: str  # the dataset's name in annotation files and in the base-data folder
    name: str  # as pages name it
    package: str  # the sub-package holding the dataset (its __name__)
    source: Source
    commit: str | None  # the pinned commit its files come from; None: a moving branch
    kind: Literal["votes", "scores"]  # pairwise votes, or a judge's number per response
    measures: str  # what its numbers measure, in a sentence
    judges: tuple[str, ...] = ()  # who judged, as the dataset names them
    # The metadata column whose values are a model's independent answers to the same task
    # (llm-dreams' answer sets, poem-eval's poems): its means get the intervals of
    # ffsite.metrics.panel over those answers, not a bootstrap over its few prompts.
    unit: str | None = None
    unit_label: str = "prompt"  # what pages call one of those answers ("answer set")
    # The name of the panel its judges form, when the site shows their mean (each judge's
    # own numbers stay apart beside it); None: each judge stands alone.
    panel: str | None = None
    # Judges that are rated models here too: (judge, the dataset's name for its model).
    judge_models: tuple[tuple[str, str], ...] = ()
    reference_model: str | None = None  # the model everything is compared with
    # The trait that sums up the others (EQ-Bench 3's overall EQ): pages list it first.
    lead_trait: str | None = None
    # What of it bears on sycophancy (the sycophancy page), in the order to show it.
    sycophancy: tuple[Bearing, ...] = ()
    # Its trait sets, (id as its files name it, what pages call it), e.g. ("bp-9",
    # "Behavioral Profiling's nine dimensions").
    trait_sets: tuple[tuple[str, str], ...] = ()
    # The rubric's scale of judge scores (lowest, highest), when it has one.
    rubric: tuple[float, float] | None = None
    # Whether the judges' prompt described the rubric's ends; False: the judges saw only
    # each trait's name and the scale (llm-dreams), so the ends' wording in the trait's
    # definition is ffsite's reading of the name, and pages say so.
    rubric_anchored: bool = True
    # Conditions its prompts were also asked under besides the baseline (BASELINE), in
    # the order pages list them.
    conditions: tuple[Condition, ...] = ()
    # Hooks ("module:attribute" in the dataset's package); None where it has no such part.
    texts: str | None = None  # (folder) -> Texts: prompts and responses pages show
    prompt_set: str | None = None  # (folder, reference) -> PromptSet `annotate` asks
    answers: str | None = None  # (files) -> outputs frame of contributed answer files
    command: str | None = None  # the click command `ffsite import <command_name>` runs
    defaults: str | None = None  # (folder, target, settings) -> None: default annotations
    files: str | None = None  # the download list, a TOML file in the dataset's folder
    # Its place on the site, when it has pages of its own.
    page: str | None = None  # its own page's name, in the main navigation under `name`
    builder: str | None = None  # (ctx) -> None: builds its pages (a site page builder)
    trait_page: str | None = None  # (ctx, trait, page) -> bool: draws its traits' pages
    home: str | None = None  # (ctx, page) -> (table, anchor, download): its home table
    model_section: str | None = None  # (ctx, model) -> [Section]: its part of model pages
    # (ctx) -> {model id: (mark, why)}: what must be said beside a model's numbers on it
    # wherever they are listed (llm-dreams: near-empty answers), as ffsite.site.judging
    # marks a model that judged itself.
    answer_marks: str | None = None
    # (scores, registry) -> [metrics.eigenbench.Derived]: EigenBench judgments it derives
    # from its judges' scores, when judges are rated models too (llm-dreams).
    peer_judgments: str | None = None
    # Its judges' reasoning, base data: (folder) -> {(comparison id, seed): reasoning}.
    reasoning: str | None = None
    # Where its answers are not public but the lengths of a model's answers are (EQ-Bench
    # 3's per-scenario averages), base data: (folder) -> {comparison id: the side, 1 A or
    # 2 B, whose model writes longer there; 0 neither}.
    longer_sides: str | None = None
    # How a new model is added the way its own numbers were made: () -> a protocol of
    # ffsite.collect.protocol (what the model answers, who judges, how often), which
    # `ffsite protocol run` runs through the collecting skeleton.
    protocol: str | None = None
    viewer_note: str | None = None  # what the explorer's pair viewer can and cannot show
    # Whether a vote's seed says which side the judge saw first (seed 0: A, seed 1: B), as
    # when a judge saw every pair in both orders.
    seed_is_order: bool = False
    # Whether the data do not say which answer its own judges saw first: sides A and B are
    # ffsite's coin flip at import (ffsite.sides), so their votes have no position figure.
    order_unknown: bool = False

    @property
    def command_name(self) -> str:
        """The word after `ffsite import` (alpaca_eval -> alpaca-eval)."""
        return self.id.replace("_", "-")

    @property
    def score_judges(self) -> tuple[str, ...]:
        """The judges its scores files name: each of its judges, and, with several, all
        of them joined by " + " (the name of their mean where only the mean is
        published).  Scores on it by any other judge are shown apart
        (`ffsite.metrics.judges.keep_apart`)."""
        joined = (" + ".join(self.judges),) if len(self.judges) > 1 else ()
        return (*self.judges, *joined)

    @property
    def condition_order(self) -> tuple[str, ...]:
        """Every condition, the baseline first; () for a dataset of one setting."""
        return (BASELINE, *(c.id for c in self.conditions)) if self.conditions else ()

    def hook(self, name: str) -> Any:
        """The attribute a hook field names, imported now; None without that hook."""
        where = getattr(self, name)
        if where is None:
            return None
        module, _, attribute = where.partition(":")
        return getattr(importlib.import_module(f"{self.package}.{module}"), attribute)

    def file(self, name: str) -> Path:
        """A file shipped in the dataset's folder."""
        return Path(importlib.import_module(self.package).__file__).parent / name
