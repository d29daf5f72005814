"""Make synthetic AnnotatedPairs files and the published package's metrics on them.

Run with a Python that has `feedback-forensics` installed (a separate virtualenv; the
package is heavy and never an ffsite dependency):

    python -m venv /tmp/ffvenv && /tmp/ffvenv/bin/pip install feedback-forensics
    /tmp/ffvenv/bin/python tools/ff_parity.py tests/data/ff_parity

It writes case_*.json (AnnotatedPairs, seeded) and golden.json (feedback-forensics'
metrics per case, reference and split); tests/test_ff_parity.py checks ffsite against them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("FF_AVAIL_METRICS", json.dumps([
    "agreement", "acc", "relevance", "strength", "cohens_kappa_og", "cohens_kappa",
    "num_votes", "agreed", "disagreed", "not_applicable"]))

import numpy as np  # noqa: E402

DEFAULT_DESCRIPTION = "Default annotator from original dataset (from column `preferred_text`)"
TRAITS = ["is more verbose", "is more concise", "uses more emojis", "is more polite",
          "has more structured formatting", "refuses to answer the question",
          "uses more bold and italics text", "is more factually correct"]
MODELS = ["m-alpha", "m-beta", "m-gamma", "m-delta"]


def short_hash(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()[:8]


def make_case(seed: int, n: int, version: str) -> dict:
    """A file with ties, missing and invalid votes, same-model and model-less pairs."""
    rng = np.random.default_rng(seed)
    default = short_hash(DEFAULT_DESCRIPTION)
    annotators = {default: {"name": "preferred_text", "description": DEFAULT_DESCRIPTION,
                            "type": "unknown"}}
    for text in TRAITS:
        wording = "Select the response that " + text
        annotators[short_hash(wording)] = {"description": wording, "type": "principle"}
    comparisons = []
    for i in range(n):
        a, b = rng.choice(MODELS, 2, replace=True)
        kind = rng.random()
        if kind < 0.05:
            b = a  # same model on both sides
        comparison: dict = {"id": f"c{i:05d}", "prompt": f"prompt {i % 37}"}
        text_a, text_b = f"answer a {i}", f"answer b {i} {'x' * (i % 5)}"
        if rng.random() < 0.02:
            text_b = ""  # empty response: feedback-forensics drops the comparison
        model_a = None if kind > 0.95 else str(a)
        if version == "2.0":
            comparison["response_a"] = {"text": text_a, **({"model": model_a} if model_a else {})}
            comparison["response_b"] = {"text": text_b, "model": str(b)}
        else:
            comparison["text_a"], comparison["text_b"] = text_a, text_b
            comparison["metadata"] = {"model_a": model_a, "model_b": str(b)}
        comparison.setdefault("metadata", {})["topic"] = str(rng.choice(["code", "chat", "math"]))
        annotations = {}
        p = rng.random()
        pref = "a" if p < 0.42 else "b" if p < 0.84 else None
        annotations[default] = _vote(pref, version, "both" if pref is None else None)
        for text in TRAITS:
            r = rng.random()
            if r < 0.08:
                continue  # missing vote
            if r < 0.3:
                vote = _vote(None, version, str(rng.choice(["not_applicable", "both", "invalid"])))
            else:
                side = "a" if rng.random() < (0.7 if text.endswith("verbose") else 0.5) else "b"
                vote = _vote(side, version, None)
            annotations[short_hash("Select the response that " + text)] = vote
        comparison["annotations"] = annotations
        comparisons.append(comparison)
    if n > 10:
        comparisons.append(dict(comparisons[3], id=comparisons[5]["id"]))  # repeated id
    return {"metadata": {"version": version, "dataset_name": f"case{seed}",
                         "default_annotator": default,
                         "available_metadata_keys_per_comparison": ["topic"]},
            "annotators": annotators, "comparisons": comparisons}


def _vote(side, version, reason):
    if side is None:
        return {"pref": None, "no_pref_reason": reason}
    return {"pref": side if version == "2.0" else f"text_{side}"}


def ff_metrics(path: Path) -> dict:
    """feedback-forensics' metrics: vs preference, vs each target model, split by topic."""
    from feedback_forensics.app.metrics import compute_annotator_metrics
    from feedback_forensics.data.handler import ColumnHandler, _split_votes_dict
    from inverse_cai.data.annotated_pairs_format import hash_string

    def run(handler, ref_col, df=None):
        df = handler.df if df is None else df
        result = compute_annotator_metrics(df.copy(), handler.annotator_metadata,
                                           handler.shown_annotator_rows, ref_col)
        out = {}
        for name, per_annotator in result["metrics"].items():
            for annotator, value in per_annotator.items():
                if isinstance(value, dict):
                    value = value.get("strength")
                value = None if value is None or (isinstance(value, float) and np.isnan(value)) \
                    else float(value)
                out.setdefault(annotator, {})[name] = value
        return out

    golden = {}
    handler = ColumnHandler(cache={})
    handler.load_data_from_path(path)
    golden["preference"] = run(handler, handler.reference_annotator_col)
    split = _split_votes_dict(handler.votes_dict, "topic")
    golden["preference_by_topic"] = {value: run(handler, handler.reference_annotator_col,
                                                part["df"]) for value, part in split.items()}
    for references in ([], ["m-beta", "m-gamma"]):
        handler = ColumnHandler(cache={}, reference_models=references)
        handler.load_data_from_path(path)
        key = "models_vs_all" if not references else "models_vs_beta_gamma"
        golden[key] = {}
        for model in MODELS:
            ref_col = hash_string(f"model_identity_{model}_over_references")
            golden[key][model] = run(handler, ref_col)
    return golden


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    golden = {}
    for seed, n, version in ((1, 400, "2.0"), (2, 250, "1.0"), (3, 12, "2.0")):
        path = out / f"case_{seed}.json"
        path.write_text(json.dumps(make_case(seed, n, version), indent=1) + "\n")
        golden[path.name] = ff_metrics(path)
    import importlib.metadata
    golden["_package"] = "feedback-forensics " + importlib.metadata.version("feedback_forensics")
    (out / "golden.json").write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/ff_parity")
