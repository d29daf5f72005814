"""What the explorer page's script reads: compact JSON, documented in docs/site-data.md.

- The index (a JSON block in the page): models, trait judges, traits, annotators and,
  per dataset, its split columns and files.
- data/explore/d<i>-counts.json per dataset: (agreed, disagreed, votes) triples per
  model pair, split value and trait (metrics/pairs.py), and against the dataset's
  preference annotator; the browser sums them for any pooled reference.
- data/explore/d<i>-p<k>.json: up to CAP comparisons of each of several consecutive
  model pairs (the datapoint viewer; a pair's file number is in the counts), with every
  annotator's vote and, when the base data has them, the prompt, both responses and the
  judge's reasoning, cut to fixed lengths; a dataset's texts stop at TEXT_BUDGET
  characters (the largest pairs get them first), so the site's size stays bounded.

Files are named by position (d0, p3), never by a model or dataset name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.datasets import find
from ffsite.format import Annotations, schema
from ffsite.metrics.pairs import pair_counts, side_counts
from ffsite.metrics.results import split_columns
from ffsite.metrics.strength import (
    TraitVotes,
    group_by_column,
    preference_judges,
    preference_sides,
)
from ffsite.site.context import SiteContext
from ffsite.site.urls import TRAITS

FORMAT = 1
CAP = 10  # comparisons per dataset × model pair in the viewer
TEXT_LIMIT = 1500  # characters of a prompt or a response
REASONING_LIMIT = 1500  # characters of one reasoning
TEXT_BUDGET = 2_000_000  # characters of texts per dataset
CAP_WITHOUT_MODELS = 5 * CAP  # a dataset without models has one "pair": show more
FOLDER = "data/explore"
CHUNK_BYTES = 60_000  # a datapoint file holds pairs until it is about this size
NO_PAIR = -1  # the "pair" of a dataset whose comparisons name no models


@dataclass
class ExploreData:
    index: dict  # the page's JSON block
    files: dict[str, dict]  # path -> JSON document
    default: dict  # the view the page shows before (or without) its script


def build_data(ctx: SiteContext) -> ExploreData:
    """The index, every dataset's counts and datapoint files, and the default view."""
    annotations = ctx.annotations
    comparisons = annotations.comparisons
    models = annotations.models
    model_index = {m: i for i, m in enumerate(models)}
    model_a = comparisons["model_a"].astype(object).map(model_index).fillna(-1).to_numpy(
        np.int64)
    model_b = comparisons["model_b"].astype(object).map(model_index).fillna(-1).to_numpy(
        np.int64)
    votes = ctx.votes
    traits = votes.traits
    judges = sorted(traits["judge"].astype(str).unique())
    annotators = annotations.annotators
    trait_position = {t: i for i, t in enumerate(traits["trait_id"])}
    index = {
        "format": FORMAT, "cap": CAP, "capWithoutModels": CAP_WITHOUT_MODELS,
        "textLimit": TEXT_LIMIT, "minValid": ctx.min_valid,
        "reference": ctx.config.reference_model, "models": models, "judges": judges,
        "traits": [[tid, ctx.labels[tid], judges.index(str(judge)),
                    ctx.slugs.page(TRAITS, tid) or ""]
                   for tid, judge in zip(traits["trait_id"], traits["judge"], strict=True)],
        "annotators": [["p" if role == schema.ROLE_PREFERENCE else "t", str(judge),
                        trait_position.get(tid, -1)]
                       for role, judge, tid in zip(annotators["role"], annotators["judge"],
                                                   annotators["trait_id"], strict=True)],
        "datasets": [],
    }
    files: dict[str, dict] = {}
    preference = preference_sides(annotations)  # each dataset's default annotator
    codes = per_annotator_votes(annotations)
    for d, dataset in enumerate(annotations.datasets):
        mask = (comparisons["dataset"] == dataset).to_numpy()
        columns, _ = split_columns(annotations, dataset)
        splits = [("", np.where(mask, 0, -1), ["all"])]
        for column in columns:
            group, values = group_by_column(annotations, column, mask)
            splits.append((column.removeprefix(schema.META_PREFIX), group, values))
        in_scope = np.flatnonzero(votes.in_scope[votes.datasets.index(dataset)])
        default = _preference_judge(ctx, dataset)
        judges_here = sorted(preference_judges(annotations, dataset),
                             key=lambda j: (j != default, j))
        sides = [preference_sides(annotations, judge=j) for j in judges_here]
        counts = dataset_counts(votes, model_a, model_b, sides, splits, in_scope)
        per_pair, note = datapoint_files(ctx, dataset, mask, model_a, model_b, preference,
                                         codes, columns, counts["p"])
        chunks, counts["f"] = bundle(per_pair)
        for k, chunk in enumerate(chunks):
            files[f"{FOLDER}/d{d}-p{k}.json"] = chunk
        files[f"{FOLDER}/d{d}-counts.json"] = counts
        reference = dataset_reference(ctx, dataset, mask, model_a, model_b)
        index["datasets"].append({
            "name": dataset, "counts": f"{FOLDER}/d{d}-counts.json",
            # What the page opens this dataset on: its reference model, or its
            # preference annotator when its comparisons name no models.
            "reference": reference,
            "against": "models" if reference is not None or not judges_here
            else "preference",
            "points": f"{FOLDER}/d{d}-p", "preference": default,
            "preferences": judges_here,
            "splits": [s[0] for s in splits[1:]], "comparisons": int(mask.sum()),
            "textNote": note})
    default = default_view(ctx, index, files)
    index["defaultDataset"] = default.get("dataset", 0)
    return ExploreData(index, files, default)


def dataset_reference(ctx: SiteContext, dataset: str, mask: np.ndarray, model_a: np.ndarray,
                      model_b: np.ndarray) -> str | None:
    """The model a dataset's table is measured against when the page opens on it: the
    site's reference model if the dataset has it, else its record's, else the site's
    anchor model, if it met at least half of the dataset's other models; else the
    model that met the most others (ties: more comparisons, then the name)."""
    models = ctx.annotations.models
    a, b = model_a[mask], model_b[mask]
    pairs = (a >= 0) & (b >= 0) & (a != b)
    a, b = a[pairs], b[pairs]
    if not len(a):
        return None
    met = pd.DataFrame({"m": np.concatenate([a, b]), "o": np.concatenate([b, a])})
    partners = met.groupby("m")["o"].nunique()
    comparisons = met.groupby("m").size()
    record = find(dataset)
    for wanted in (ctx.config.reference_model, record.reference_model if record else None,
                   ctx.config.anchor_model):
        if wanted in models and models.index(wanted) in partners.index and \
                partners[models.index(wanted)] >= (len(partners) - 1) / 2:
            return wanted
    best = sorted(partners.index, key=lambda m: (-partners[m], -comparisons[m], models[m]))
    return models[best[0]]


def _preference_judge(ctx: SiteContext, dataset: str) -> str | None:
    found = ctx.datasets.set_index("dataset")["default_annotator"].get(dataset)
    return None if found is None or found != found else str(found)


def dataset_counts(votes: TraitVotes, model_a: np.ndarray, model_b: np.ndarray,
                   preferences: list[np.ndarray], splits: list, in_scope: np.ndarray) -> dict:
    """One dataset's counts document: t (trait positions in scope), s (splits: column and
    values), p (pairs: [model, model, comparisons]), pc and rc (triples, see module);
    `preferences` holds each preference annotator's sides, the default first."""
    by_split = []
    reference: list[list] = [[] for _ in preferences]
    pairs = None
    for _, group, values in splits:
        found = pair_counts(votes, model_a, model_b, group, len(values))
        if pairs is None:
            pairs = found.pairs
            # comparisons per pair: an annotated trait counts each of them once, with
            # or without a vote
            sizes = found.counts[:, 0, :, 2].max(axis=1, initial=0) if len(in_scope) else \
                np.zeros(len(pairs), np.int64)
        selected = found.counts[:, :, in_scope, :]  # [pairs, values, traits, 3]
        per_value = []
        for v in range(len(values)):
            block = selected[:, v].reshape(len(found.pairs), 3 * len(in_scope))
            keep = np.flatnonzero(block[:, 2::3].sum(axis=1) > 0)
            per_value.append([[int(p), *block[p].tolist()] for p in keep])
        by_split.append(per_value)
        for position, sides in enumerate(preferences):
            against = side_counts(votes, sides, group, len(values))[:, in_scope, :]
            reference[position].append([row.reshape(-1).tolist() for row in against])
    if len(splits) > 1:  # "all" is the sum of the first split's values: left to the browser
        by_split[0] = None
        for per_judge in reference:
            per_judge[0] = None
    return {"t": in_scope.tolist(), "s": [[c, list(v)] for c, _, v in splits],
            "p": [[int(a), int(b), int(n)] for (a, b), n in zip(pairs, sizes, strict=True)],
            "pc": by_split, "rc": reference or None}


def per_annotator_votes(annotations: Annotations) -> np.ndarray:
    """[comparisons, annotators] every vote of every annotator as one number: its vote
    codes as digits in file order (12 = A then B, for two seeds); 0 = no vote."""
    frame = annotations.votes
    comparison = frame["comparison"].to_numpy()
    annotator = frame["annotator"].to_numpy()
    code = frame["vote"].to_numpy().astype(np.int64)
    n_annotators = len(annotations.annotators)
    key = comparison.astype(np.int64) * n_annotators + annotator
    order = np.argsort(key, kind="stable")
    key, code = key[order], code[order]
    start = np.r_[True, key[1:] != key[:-1]]
    slot = np.arange(len(key)) - np.maximum.accumulate(np.where(start, np.arange(len(key)),
                                                                0))
    slots = np.bincount(key, minlength=len(annotations.comparisons) * n_annotators)
    digits = slots[key] - 1 - slot  # the first vote gets the highest digit
    values = np.zeros(len(annotations.comparisons) * n_annotators, dtype=np.int64)
    np.add.at(values, key, code * 10 ** np.minimum(digits, 17))
    return values.reshape(len(annotations.comparisons), n_annotators)


def sample_order(ids: np.ndarray) -> np.ndarray:
    """A fixed, well-mixed order of comparison ids (their hash), so each pair's sample is
    the same on every build and not the first rows of a file."""
    hashes = pd.util.hash_array(np.asarray(ids, dtype=object).astype(str).astype(object))
    return np.argsort(hashes, kind="stable")


def datapoint_files(ctx: SiteContext, dataset: str, mask: np.ndarray, model_a: np.ndarray,
                    model_b: np.ndarray, preference: np.ndarray, codes: np.ndarray,
                    meta_columns: list[str], pairs: list) -> tuple[list[dict], str | None]:
    """The viewer's files of one dataset (one per pair in `pairs` order, or one for a
    dataset without models) and a note on what their texts leave out."""
    comparisons = ctx.annotations.comparisons
    rows = np.flatnonzero(mask)
    lo = np.minimum(model_a[rows], model_b[rows])
    hi = np.maximum(model_a[rows], model_b[rows])
    width = len(ctx.annotations.models) + 1
    if pairs:  # each comparison's pair (-1: none), found by key
        # pairs come sorted by (first, second) model, so their keys are sorted too
        pair_keys = np.array([a * width + b for a, b, _ in pairs], dtype=np.int64)
        keys = lo * width + hi
        found = np.minimum(np.searchsorted(pair_keys, keys), len(pairs) - 1)
        pair = np.where((lo >= 0) & (pair_keys[found] == keys), found, -1)
    else:  # no models: one "pair" holds every comparison
        pair = np.zeros(len(rows), np.int64)
        pairs = [[NO_PAIR, NO_PAIR, len(rows)]]
    ordered = rows[sample_order(comparisons["comparison_id"].to_numpy()[rows])]
    pair_sorted = pair[np.searchsorted(rows, ordered)]
    # Within each pair, the first CAP in the hashed order; pairs in their own order.
    by_pair = np.argsort(pair_sorted, kind="stable")
    ordered, pair_sorted = ordered[by_pair], pair_sorted[by_pair]
    start = np.searchsorted(pair_sorted, pair_sorted)
    rank = np.arange(len(ordered)) - start
    cap = CAP if pairs[0][0] != NO_PAIR else CAP_WITHOUT_MODELS
    keep = (rank < cap) & (pair_sorted >= 0)
    chosen, chosen_pair = ordered[keep], pair_sorted[keep]
    # Texts go to the largest pairs first (the reference model's, usually), so the
    # budget covers the pairs readers open most.
    sizes = np.array([n for _, _, n in pairs], dtype=np.int64)
    first = np.lexsort((rank[keep], chosen_pair, -sizes[chosen_pair]))
    chosen, chosen_pair = chosen[first], chosen_pair[first]

    texts = ctx.texts(dataset)
    note = None
    reasoning: dict = {}
    if texts is None:
        note = ("Texts left out: the base dataset is not part of this build (build with "
                "FFSITE_BASE_DATA or --base-data to show prompts and responses).")
    elif (record := find(dataset)) is not None and record.reasoning:
        if ctx.base_dir is not None and (Path(ctx.base_dir) / dataset).is_dir():
            reasoning = record.hook("reasoning")(Path(ctx.base_dir) / dataset)
        note = record.viewer_note
    prompts, responses = texts if texts is not None else ({}, {})
    columns = {name: comparisons[name].astype(object).to_numpy()
               for name in ("comparison_id", "prompt_id", "response_a_id", "response_b_id")}
    meta = [comparisons[c].astype(object).to_numpy() for c in meta_columns]
    matrix = ctx.votes.matrix
    budget = TEXT_BUDGET
    documents = [{"k": k, "pair": [int(a), int(b)], "total": int(n), "c": []}
                 for k, (a, b, n) in enumerate(pairs)]
    for row, k in zip(chosen.tolist(), chosen_pair.tolist(), strict=True):
        cid = str(columns["comparison_id"][row])
        point = {"id": cid, "a": int(model_a[row]), "b": int(model_b[row]),
                 "m": [None if pd.isna(v) else str(v) for v in (values[row] for values in meta)],
                 "pref": int(preference[row]), "tv": "".join(map(str, matrix[row].tolist())),
                 "v": codes[row].tolist()}
        if budget > 0 and texts is not None:
            point["texts"] = _texts(prompts, responses, columns, row)
            if reasoning:
                point["why"] = [_cut(reasoning[(cid, seed)].text, REASONING_LIMIT)
                                if (cid, seed) in reasoning else None for seed in (0, 1)]
            budget -= sum(len(t or "") for t in point["texts"]) + sum(
                len(t or "") for t in point.get("why", []))
        documents[k]["c"].append(point)
    if budget <= 0:
        note = (note + " " if note else "") + (
            f"To keep the site small, texts stop after {TEXT_BUDGET:,} characters for this "
            "dataset, given to the pairs with the most comparisons first; the other pairs "
            "show their votes only.")
    return documents, note


def bundle(per_pair: list[dict]) -> tuple[list[dict], list[int]]:
    """Consecutive pairs' datapoints in files of about CHUNK_BYTES (thousands of tiny
    files would slow the build and a host's upload), and each pair's file number."""
    chunks: list[dict] = []
    file_of: list[int] = []
    size = CHUNK_BYTES
    for document in per_pair:
        if size >= CHUNK_BYTES:
            chunks.append({"pairs": []})
            size = 0
        chunks[-1]["pairs"].append(document)
        file_of.append(len(chunks) - 1)
        size += len(json.dumps(document, ensure_ascii=False, separators=(",", ":")))
    return chunks, file_of


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + " …"


def _texts(prompts: dict, responses: dict, columns: dict, row: int) -> list[str | None]:
    """[prompt, response A, response B], each cut at TEXT_LIMIT; None where missing."""
    found = [prompts.get(columns["prompt_id"][row]),
             responses.get(columns["response_a_id"][row]),
             responses.get(columns["response_b_id"][row])]
    return [None if t is None else _cut(str(t), TEXT_LIMIT) for t in found]


# ------------------------------------------------------------------ the default view

def triple_metric(triples: np.ndarray, metric: str) -> np.ndarray:
    """A metric from (agreed, disagreed, votes) triples, as explore.js computes it."""
    agreed, disagreed, total = (triples[..., i].astype(float) for i in range(3))
    valid = agreed + disagreed
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = np.where(valid > 0, agreed / np.where(valid > 0, valid, 1), 0.5)
        relevance = np.where(total > 0, valid / np.where(total > 0, total, 1), np.nan)
        kappa = 2 * (accuracy - 0.5)
    return {"strength": kappa * relevance, "relevance": relevance,
            "kappa": np.where(total > 0, kappa, np.nan),
            "agreement": np.where(valid > 0, accuracy, np.nan)}[metric]


def pooled_rows(counts: dict) -> dict[int, np.ndarray]:
    """{pair: flat triples} over the whole dataset (the sum of the first split's values
    when "all" is not stored)."""
    if counts["pc"][0] is not None:
        return {row[0]: np.array(row[1:]) for row in counts["pc"][0][0]}
    found: dict[int, np.ndarray] = {}
    for rows in counts["pc"][1]:
        for row in rows:
            found[row[0]] = found.get(row[0], 0) + np.array(row[1:])
    return found


def default_view(ctx: SiteContext, index: dict, files: dict[str, dict]) -> dict:
    """The view the page opens on: the headline dataset (the first whose traits an LLM
    judged, else the first with a reference), every model against its reference model,
    strength of each trait: {dataset, judge, reference, models, rows: [[trait position,
    [triple per model]]]}; empty when no dataset has a reference model."""
    models = index["models"]
    candidates = [d for d, e in enumerate(index["datasets"]) if e["reference"] is not None]
    if not candidates:
        return {}
    rules = {j for j, name in enumerate(index["judges"]) if name.startswith("rules")}
    judged = [d for d in candidates if any(
        index["traits"][t][2] not in rules for t in files[index["datasets"][d]["counts"]]["t"])]
    d = (judged or candidates)[0]
    entry = index["datasets"][d]
    r = models.index(entry["reference"])
    counts = files[entry["counts"]]
    own = [(k, p) for k, p in enumerate(counts["p"]) if r in p[:2]]
    in_scope = counts["t"]
    judge = index["traits"][in_scope[0]][2] if in_scope else 0
    rows_by_pair = pooled_rows(counts)
    targets, table = [], []
    for k, (a, b, _) in own:
        flat = np.array(rows_by_pair.get(k, [0] * 3 * len(in_scope))).reshape(-1, 3)
        # from the target's side: swap when the target is the pair's second model
        targets.append((b if a == r else a, flat if b == r else flat[:, [1, 0, 2]]))
    targets.sort(key=lambda t: models[t[0]].lower())
    for position, trait in enumerate(in_scope):
        if index["traits"][trait][2] != judge:
            continue
        table.append([trait, [t[1][position].tolist() for t in targets]])
    return {"dataset": d, "judge": judge, "reference": entry["reference"],
            "models": [t[0] for t in targets], "rows": table}


# ------------------------------------------------------------------ judges' side biases
