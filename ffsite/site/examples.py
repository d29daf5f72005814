"""Example pairs for a model page: a comparison that shows each trait's finding.

For every trait, one comparison with the reference whose trait vote points the way the
model's strength does (the model's side when it shows the trait more, the reference's
side when less).  Comparisons that illustrate many traits at once are preferred, then
shorter ones, so a page shows a few pairs, each linked from the traits it illustrates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from markupsafe import Markup

from ffsite.collect.files import responses_file
from ffsite.datasets.record import Texts
from ffsite.datasets.texts import TextsById, text_lengths
from ffsite.errors import FfsiteError
from ffsite.format import schema
from ffsite.format.read import Annotations
from ffsite.metrics.results import ModelResults, TraitVotes
from ffsite.site.render import response_html

COLUMNS = ("dataset", "comparison_id", "prompt_id", "model_a", "model_b", "response_a_id",
           "response_b_id")


@dataclass
class Example:
    anchor: str
    dataset: str
    comparison_id: str
    prompt: str
    model_a: str
    model_b: str
    response_a: Markup
    response_b: Markup
    truncated: bool
    illustrates: list[dict] = field(default_factory=list)  # label, page, side
    trait_votes: dict[str, list[str]] = field(default_factory=dict)  # side -> trait labels
    preference: str | None = None  # e.g. "A (m1); judge: AlpacaEval 2.0 judge (GPT-4 Turbo)"
    preference_judge: str | None = None  # the judge's readable name, when it was asked
    rated: bool = False  # the preference judge gave a verdict (not missing)


@dataclass
class ExamplePool:
    """Everything example pages need, prepared once for all models."""

    comparisons: pd.DataFrame  # the COLUMNS of every comparison
    has_text: np.ndarray  # per comparison: prompt and both responses have texts
    length: np.ndarray  # per comparison: characters of both responses
    labels: np.ndarray  # per trait (column of the vote matrix)
    pages: np.ndarray  # per trait: the path of its page
    texts_for: Callable[[str], Texts | None]
    preference_of: Callable[[int], tuple[str, int] | None]

    @classmethod
    def create(cls, annotations: Annotations, votes: TraitVotes, labels: pd.Series,
               pages: dict[str, str], texts_for: Callable[[str], Texts | None],
               preference_of: Callable[[int], tuple[str, int] | None],
               datasets: list[str]) -> ExamplePool:
        comparisons = annotations.comparisons[list(COLUMNS)]
        has_text = np.zeros(len(comparisons), dtype=bool)
        length = np.zeros(len(comparisons), dtype=np.int64)
        for dataset in datasets:
            texts = texts_for(dataset)
            if texts is None:
                continue
            prompts, responses = texts
            rows = np.flatnonzero((comparisons["dataset"] == dataset).to_numpy(bool))
            part = comparisons.iloc[rows]
            a, b = (part[f"response_{side}_id"].to_numpy(object) for side in "ab")
            has_text[rows] = [prompt in prompts and first in responses and second in responses
                              for prompt, first, second in zip(
                                  part["prompt_id"].to_numpy(object), a, b, strict=True)]
            length[rows] = text_lengths(responses, a) + text_lengths(responses, b)
        ids = votes.traits["trait_id"]
        return cls(comparisons, has_text, length, labels.reindex(ids).to_numpy(),
                   ids.map(pages).to_numpy(), texts_for, preference_of)


def choose_examples(pool: ExamplePool, votes: TraitVotes, results: ModelResults,
                    model: str) -> tuple[list[Example], dict[str, str]]:
    """(examples, {trait_id: example anchor}) for `model`'s page."""
    reference = results.reference
    pick = reference.group == reference.groups.index(model)
    rows, model_side = reference.comparison[pick], reference.side[pick]
    has_text = pool.has_text[rows]
    if not has_text.any():
        return [], {}

    # The side each trait's example should favour, given the sign of its strength.
    own = results.traits[results.traits["model"] == model].set_index("trait_id")["strength"]
    strength = own.reindex(votes.traits["trait_id"]).to_numpy()
    wanted = np.where(strength[None, :] >= 0, model_side[:, None], 3 - model_side[:, None])
    codes = votes.matrix[rows]
    candidate = (codes == wanted) & has_text[:, None] & ~np.isnan(strength)[None, :]
    # Prefer pairs that illustrate many traits, then shorter ones; argmax takes the first.
    score = candidate.sum(axis=1) * 10**9 - np.minimum(pool.length[rows], 10**9 - 1)
    best = np.where(candidate, score[:, None], np.iinfo(np.int64).min).argmax(axis=0)

    trait_ids = votes.traits["trait_id"].to_numpy()
    examples: dict[int, Example] = {}
    anchors: dict[str, str] = {}
    for trait in np.flatnonzero(candidate.any(axis=0)):
        local = int(best[trait])
        if local not in examples:
            examples[local] = _example(pool, int(rows[local]), codes[local],
                                       f"ex-{len(examples) + 1}")
        example = examples[local]
        side = "A" if codes[local, trait] == schema.A else "B"
        shown_by = example.model_a if side == "A" else example.model_b
        example.illustrates.append({"label": pool.labels[trait], "page": pool.pages[trait],
                                    "side": f"{side}, {shown_by}"})
        anchors[trait_ids[trait]] = example.anchor
    return list(examples.values()), anchors


def _example(pool: ExamplePool, row: int, codes: np.ndarray, anchor: str) -> Example:
    record = pool.comparisons.iloc[row].to_dict()
    prompts, responses = pool.texts_for(record["dataset"])
    html_a, cut_a = response_html(responses[record["response_a_id"]])
    html_b, cut_b = response_html(responses[record["response_b_id"]])
    trait_votes = {name: sorted(pool.labels[codes == code])
                   for code, name in ((schema.A, "A"), (schema.B, "B"), (schema.TIE, "tie"))}
    preference = pool.preference_of(row)
    shown, judge, code = None, None, schema.NO_VOTE
    if preference is not None:
        judge, code = preference
        shown = preference_wording(judge, code, str(record["model_a"]), str(record["model_b"]))
    return Example(anchor=anchor, dataset=str(record["dataset"]),
                   comparison_id=str(record["comparison_id"]),
                   prompt=prompts[record["prompt_id"]], model_a=str(record["model_a"]),
                   model_b=str(record["model_b"]), response_a=html_a, response_b=html_b,
                   truncated=cut_a or cut_b, trait_votes=trait_votes, preference=shown,
                   preference_judge=judge,
                   rated=code not in (schema.NO_VOTE, schema.MISSING))


def preference_wording(judge: str, code: int, model_a: str, model_b: str) -> str:
    """A preference vote in plain words, naming the judge (its readable name): the
    AlpacaEval judge rated only some models' pairs, so "not rated" must read as such."""
    by = f"judge: {judge}"
    return {
        schema.A: f"A ({model_a}); {by}",
        schema.B: f"B ({model_b}); {by}",
        schema.TIE: f"a tie; {by}",
        schema.NEITHER: f"neither response; {by}",
        schema.INVALID: f"no verdict: {judge} answered, but its answer could not be read",
        schema.MISSING: f"not rated: {judge} did not rate this pair",
    }.get(code, f"no verdict from {judge}")


MAX_ANSWERS_BYTES = 50 * 2**20


def with_contributed_answers(texts: Texts, files: list[Path],
                             read: Callable[[list[Path]], pd.DataFrame]) -> Texts:
    """`texts` plus the answers contributors' runs wrote beside their votes
    (`<name>.responses.json` next to `<name>.parquet`), read by the dataset's `read`: a
    contributed model's pages show its own example answers without anyone copying files
    into the base data."""
    answers = sorted(p for p in {responses_file(f) for f in files} if p.is_file())
    if not answers:
        return texts
    for path in answers:  # 805 long answers are a few MB; far more is not an answer file
        if path.stat().st_size > MAX_ANSWERS_BYTES:
            raise FfsiteError(f"{path}: {path.stat().st_size:,} bytes, more than the "
                              f"{MAX_ANSWERS_BYTES:,} an answers file may have; remove it or "
                              "re-create it with ffsite annotate")
    outputs = read(answers)
    prompts = dict(texts[0])
    prompts.update(zip(outputs["prompt_id"], outputs["instruction"], strict=True))
    responses = texts[1] if isinstance(texts[1], TextsById) else TextsById(
        list(texts[1]), list(texts[1].values()))
    return prompts, responses.plus(outputs["response_id"], outputs["output"])
