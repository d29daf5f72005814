"""The datasets ffsite knows: one sub-package each, and this list, the only place the rest
of the code learns which exist (`ffsite import NAME`, `ffsite fetch`, default
annotations, pages, credits and the base-data folder all read it).

To add a dataset: a sub-package holding its record (`DATASET`, see `record.Dataset`) and
its code, one line in DATASETS, its models in content/models.toml and its files in
annotations/.  docs/architecture.md walks through one.
"""

from __future__ import annotations

from ffsite.datasets import (
    aa_personality,
    alpaca_eval,
    behavioral_profiling,
    eqbench3,
    hh_rlhf,
    llm_dreams,
    poem_eval,
)
from ffsite.datasets.record import BASELINE, Condition, Dataset, Source, Texts

__all__ = ["APART", "BASELINE", "CONDITIONS", "CONDITION_ORDER", "DATASETS",
           "DEFAULT_PROMPT_SET", "PANELS", "PROMPT_SETS", "PROTOCOLS", "RUBRIC_FLOORS",
           "SCORE_JUDGES", "SOURCES", "TRAIT_SET_NAMES", "UNITS", "Condition", "Dataset",
           "Source", "Texts", "condition_description", "condition_label", "dataset_name",
           "find", "is_apart"]

# In the order commands and pages list them.
DATASETS: tuple[Dataset, ...] = (
    alpaca_eval.DATASET,
    hh_rlhf.DATASET,
    behavioral_profiling.DATASET,
    eqbench3.DATASET,
    llm_dreams.DATASET,
    poem_eval.DATASET,
    aa_personality.DATASET,
)
_BY_ID = {dataset.id: dataset for dataset in DATASETS}

# The datasets whose prompts `ffsite annotate` and `eigenbench run` can ask a model
# (each has a prompt set with a reference model's answers); the first is the default.
PROMPT_SETS: tuple[Dataset, ...] = tuple(d for d in DATASETS if d.prompt_set)
DEFAULT_PROMPT_SET = PROMPT_SETS[0]

# Views of the records that pages look things up in.  Where each dataset comes from:
SOURCES: dict[str, Source] = {dataset.id: dataset.source for dataset in DATASETS}
# Every condition besides the baseline: (label, what it adds to the baseline prompt).
CONDITIONS: dict[str, tuple[str, str]] = {
    c.id: (c.label, c.description) for dataset in DATASETS for c in dataset.conditions}
# Judges pooled into a declared panel, by dataset: (the panel's name, its members).
PANELS: dict[str, tuple[str, tuple[str, ...]]] = {
    d.id: (d.panel, d.judges) for d in DATASETS if d.panel}
# The judges each scores dataset's own numbers come from; anyone else's are kept apart.
SCORE_JUDGES: dict[str, tuple[str, ...]] = {
    d.id: d.score_judges for d in DATASETS if d.kind == "scores" and d.judges}
# The datasets a new model can be added to the way their numbers were made.
PROTOCOLS: tuple[Dataset, ...] = tuple(d for d in DATASETS if d.protocol)
# The column of each dataset that tells a model's repeated answers apart (Dataset.unit).
UNITS: dict[str, str] = {d.id: d.unit for d in DATASETS if d.unit}
# The lowest anchor of each rubric: scores under it are counted where they are shown.
RUBRIC_FLOORS: dict[str, float] = {d.id: d.rubric[0] for d in DATASETS if d.rubric}
# What pages call each dataset's trait sets (ffsite.traits names the built-in ones).
TRAIT_SET_NAMES: dict[str, str] = {
    set_id: words for d in DATASETS for set_id, words in d.trait_sets}
# The order pages list conditions in: the baseline first.
CONDITION_ORDER: tuple[str, ...] = tuple(dict.fromkeys(
    c for dataset in DATASETS for c in dataset.condition_order))


def find(dataset: str) -> Dataset | None:
    """The record of a dataset id; None for a dataset ffsite has no record of (a
    contributor's own, say), which pages name by its id."""
    return _BY_ID.get(dataset)


APART = "@"  # "<dataset>@<judges and settings>": numbers made another way, kept apart


def is_apart(dataset: str) -> bool:
    """Whether `dataset` holds numbers kept apart from a dataset's own ("<id>@<how>")."""
    base, apart, _ = dataset.partition(APART)
    return bool(apart) and base in _BY_ID


def dataset_name(dataset: str) -> str:
    """How pages name a dataset: its record's name, else its id.  Numbers kept apart
    from a dataset's own ("<id>@<how>": other judges or settings) are named by it and
    by how they were made: "llm-dreams (apart: <judges> [<settings>])"."""
    found = _BY_ID.get(dataset)
    if found:
        return found.name
    base, apart, how = dataset.partition(APART)
    if apart and base in _BY_ID:
        return f"{_BY_ID[base].name} (apart: {how})"
    return dataset


def condition_label(condition: str) -> str:
    """How pages name a condition; the baseline and unknown ones by their id."""
    return CONDITIONS.get(condition, (condition, ""))[0]


def condition_description(condition: str) -> str:
    """What a condition adds to the baseline prompt; the baseline and unknown ones: their
    id."""
    return CONDITIONS.get(condition, (condition, condition))[1]
