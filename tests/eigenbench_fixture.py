"""TEST FIXTURE, simulated: EigenBench judgments drawn from known lenses, dispositions and
tie propensities. Never real data; written only to temporary folders, never annotations/.

`simulate` draws judgments straight from the low-rank Bradley-Terry-Davidson model;
`write_simulated_votes` writes them as an ordinary votes file, as `ffsite eigenbench run`
would: one comparison per scenario and evaluee pair, the judge a model of the population,
the trait a constitution criterion, both orders as seeds 0 and 1 (votes name the side, A
or B, whatever the order it was shown in).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite.format.write import write_votes
from ffsite.metrics import eigenbench as eb
from ffsite.traits import trait_id

DATASET = "eigenbench-simulated-test-fixture"
CONSTITUTION = "simulated-constitution"
CRITERION = "Select the response that is kinder (simulated test criterion)"


@dataclass(frozen=True)
class Truth:
    lenses: np.ndarray
    dispositions: np.ndarray
    lambdas: np.ndarray

    @property
    def elo(self) -> np.ndarray:
        trust = eb.trust_matrix(self.lenses, self.dispositions, self.lambdas)
        return eb.elo_from_trust(eb.eigentrust(trust))


def truth(n_models: int, dims: int, seed: int) -> Truth:
    """Lenses mostly agreeing (positive, differing in direction), dispositions spread
    evenly along the shared direction (so the true ratings are apart, not near-ties) plus
    noise across it, tie propensities 0.3-1.5."""
    rng = np.random.default_rng(seed)
    quality = rng.permutation(np.linspace(-1.5, 1.5, n_models))
    dispositions = quality[:, None] + rng.normal(0.0, 0.15, (n_models, dims))
    return Truth(np.abs(rng.normal(1.0, 0.4, (n_models, dims))), dispositions,
                 rng.uniform(0.3, 1.5, n_models))


def draw_outcomes(model: Truth, judge: np.ndarray, first: np.ndarray, second: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
    """FIRST, SECOND or TIE per judgment, from the BTD probabilities."""
    a = (model.lenses[judge] * model.dispositions[first]).sum(axis=1)
    b = (model.lenses[judge] * model.dispositions[second]).sum(axis=1)
    c = np.log(model.lambdas[judge]) + (a + b) / 2
    logits = np.stack([a, b, c], axis=1)  # columns in the order FIRST, SECOND, TIE
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return (rng.random(len(judge))[:, None] > p.cumsum(axis=1)).sum(axis=1).clip(0, 2)


def names(n_models: int) -> tuple[str, ...]:
    return tuple(f"sim-model-{m:02d}" for m in range(n_models))


def simulate(model: Truth, n_judgments: int, seed: int, *,
             self_judgments: bool = True) -> eb.Judgments:
    """Judgments by random judges on random pairs, the judge drawn independently of the
    pair (as the paper samples them), or, without self-judgments, never one of the two."""
    rng = np.random.default_rng(seed)
    n = len(model.lambdas)
    judge, first, second = pairs_for_judges(n, n_judgments, rng, self_judgments=self_judgments)
    outcome = draw_outcomes(model, judge, first, second, rng)
    return eb.Judgments(names(n), judge.astype(np.int32), first.astype(np.int32),
                        second.astype(np.int32), outcome.astype(np.int8),
                        np.arange(n_judgments))


def pairs_for_judges(n: int, count: int, rng: np.random.Generator, *,
                     self_judgments: bool = True):
    """(judge, first, second): two different evaluees and a judge drawn independently of
    them (so the judge is one of the two in 2/N of the judgments), or, without
    self-judgments, a judge that is neither of them."""
    judge = rng.integers(0, n, count)
    if self_judgments:
        first = rng.integers(0, n, count)
        return judge, first, (first + rng.integers(1, n, count)) % n
    first = (judge + rng.integers(1, n, count)) % n
    second = (judge + rng.integers(1, n, count)) % n
    clash = first == second
    while clash.any():
        second[clash] = (judge[clash] + rng.integers(1, n, clash.sum())) % n
        clash = first == second
    return judge, first, second


def vote_frame(model: Truth, n_comparisons: int, seed: int, *,
               first_shown_judge: int | None = None) -> pd.DataFrame:
    """Votes in the format's long shape: each comparison judged by one judge in both
    orders (seed 0: A shown first; seed 1: B shown first). `first_shown_judge` names a
    judge that always picks the side shown first."""
    rng = np.random.default_rng(seed)
    n = len(model.lambdas)
    judge, first, second = pairs_for_judges(n, n_comparisons, rng)
    orders = [draw_outcomes(model, judge, first, second, rng) for _ in range(2)]
    if first_shown_judge is not None:
        biased = judge == first_shown_judge
        orders[0] = np.where(biased, eb.FIRST, orders[0])  # A shown first: picks A
        orders[1] = np.where(biased, eb.SECOND, orders[1])  # B shown first: picks B
    model_names = np.array(names(n), dtype=object)
    ids = np.array([f"s{c:05d}" for c in range(n_comparisons)], dtype=object)
    letters = np.array(["A", "B", "tie"], dtype=object)
    frames = []
    for seed_number, outcome in enumerate(orders):
        frames.append(pd.DataFrame({
            "dataset": DATASET, "comparison_id": ids,
            "prompt_id": [f"scenario-{c // 5:04d}" for c in range(n_comparisons)],
            "model_a": model_names[first], "model_b": model_names[second],
            "response_a_id": None, "response_b_id": None,
            "role": "trait", "judge": model_names[judge],
            "trait_id": trait_id(CRITERION), "trait": CRITERION, "trait_set": CONSTITUTION,
            "seed": seed_number, "vote": letters[outcome], "note": None}))
    frame = pd.concat(frames, ignore_index=True)
    frame["seed"] = frame["seed"].astype("Int64")
    return frame


def write_simulated_votes(folder: Path, model: Truth, n_comparisons: int, seed: int,
                          **kwargs) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "eigenbench-simulated.parquet"
    write_votes(vote_frame(model, n_comparisons, seed, **kwargs), path,
                extra={"note": "TEST FIXTURE: simulated EigenBench judgments"})
    return path


# ------------------------------------------- the truth, computed apart from ffsite's code

def independent_trust(model: Truth) -> np.ndarray:
    """The trust matrix of seed 002's formula written out term by term (not ffsite's
    vectorised code): T_ij = (s_ij + lambda_i/2 sum_{k != j} sqrt(s_ij s_ik)) / row sum."""
    n = len(model.lambdas)
    s = np.exp(model.lenses @ model.dispositions.T)
    trust = np.empty((n, n))
    for i in range(n):
        raw = [s[i, j] + model.lambdas[i] / 2 * sum(np.sqrt(s[i, j] * s[i, k])
                                                    for k in range(n) if k != j)
               for j in range(n)]
        trust[i] = np.array(raw) / sum(raw)
    return trust


def independent_elo(model: Truth) -> np.ndarray:
    """EigenTrust Elo from the left principal eigenvector of T (numpy's eig, not power
    iteration): 1500 + 400 log10(N t_j)."""
    trust = independent_trust(model)
    values, vectors = np.linalg.eig(trust.T)
    t = np.real(vectors[:, np.argmax(np.real(values))])
    t = t / t.sum()
    return 1500 + 400 * np.log10(len(t) * t)


def independent_self_preference(model: Truth) -> np.ndarray:
    """400 log10(T_ii / mean over the other judges k of T_ki), per judge."""
    trust = independent_trust(model)
    n = len(trust)
    own = np.diag(trust)
    others = np.array([np.mean([trust[k, i] for k in range(n) if k != i]) for i in range(n)])
    return 400 * np.log10(own / others)
