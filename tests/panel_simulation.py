"""Simulated panels of llm-dreams' shape, with known truths, for the coverage tests of
ffsite.metrics.panel.

score[m, u, j, r, t] = mu[t] + model[m, t] + judge[j, t] + model x judge[m, j, t]
                       + s[m] s[m, t] (answer[m, u, t] + judge x answer[m, u, j, t])
                       + repeat[m, u, j, r, t] (times s[m] s[m, t] when `spread_repeats`)
                       + self-preference (delta on judge j's scores of its own model)
with every effect normal (or Student t, scaled to the same sd, when `tails` is set), each
trait's noise on its own scale (log-uniform from 0.3 to 1.5 times the scenario's: on
llm-dreams creativity's answer noise is a tenth of anxiety's), s[m] = exp(spread * z / 2)
normalised to mean square 1 (a model-level factor on the answer variance), s[m, t] the
same per model and trait.  The judges are fixed: the panel's truth is mu + model + the
mean over judges of (judge + model x judge + self-preference); a judge's truth is its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ffsite.metrics.panel import PanelData


@dataclass(frozen=True)
class Scenario:
    name: str
    models: int = 236
    units: int = 2
    judges: int = 9
    repeats: int = 2
    traits: int = 15
    model_sd: float = 0.8
    judge_sd: float = 0.5
    interaction_sd: float = 0.35
    answer_sd: float = 0.35  # answer-set effect, shared by the judges
    judge_answer_sd: float = 0.25  # a judge's own reaction to one answer set
    repeat_sd: float = 0.4
    spread: float = 0.0  # sd of log answer variance across models
    trait_spread: float = 0.0  # sd of log answer variance across (model, trait)
    spread_repeats: bool = False
    correlation: float = 0.0  # of answer-set effects across a model's traits
    tails: float | None = None  # Student t degrees of freedom
    rounding: float | None = None  # scores on this grid (llm-dreams: 0.1)
    self_preference: float = 0.0
    own: int = 8  # judges 0 .. own-1 rate their own model, models 0 .. own-1


@dataclass(frozen=True)
class Simulated:
    data: PanelData
    panel_truth: np.ndarray  # [model, trait]
    judge_truth: np.ndarray  # [model, judge, trait]
    panel_sd: np.ndarray  # [model, trait]: the true sd of the panel mean
    judge_models: dict[str, str] = field(default_factory=dict)


def _noise(rng: np.random.Generator, shape: tuple[int, ...], tails: float | None
           ) -> np.ndarray:
    if tails is None:
        return rng.standard_normal(shape)
    return rng.standard_t(tails, shape) / np.sqrt(tails / (tails - 2))


def _factor(rng: np.random.Generator, spread: float, shape: tuple[int, ...]) -> np.ndarray:
    factor = np.exp(spread * rng.standard_normal(shape) / 2)
    return factor / np.sqrt(np.mean(factor ** 2))


def simulate(scenario: Scenario, seed: int) -> Simulated:
    sc = scenario
    rng = np.random.default_rng(seed)
    m, u, j, r, t = sc.models, sc.units, sc.judges, sc.repeats, sc.traits
    scale = np.exp(rng.uniform(np.log(0.3), np.log(1.5), t))  # per trait
    mu = rng.uniform(3, 8, t)
    model = sc.model_sd * rng.standard_normal((m, 1, t))
    judge = sc.judge_sd * rng.standard_normal((1, j, t))
    interaction = sc.interaction_sd * rng.standard_normal((m, j, t))
    own = np.zeros((m, j, t))
    own[np.arange(sc.own), np.arange(sc.own)] = sc.self_preference
    judge_truth = mu + model + judge + interaction + own
    size = (_factor(rng, sc.spread, (m, 1)) * _factor(rng, sc.trait_spread, (m, t))
            * scale)[:, None, None, None, :]  # [m, 1, 1, 1, t]
    shared = _noise(rng, (m, u, 1, 1, 1), sc.tails)
    answer = sc.answer_sd * (np.sqrt(sc.correlation) * shared + np.sqrt(
        1 - sc.correlation) * _noise(rng, (m, u, 1, 1, t), sc.tails))
    reaction = sc.judge_answer_sd * _noise(rng, (m, u, j, 1, t), sc.tails)
    repeat_size = size if sc.spread_repeats else np.broadcast_to(scale, size.shape)
    repeat = sc.repeat_sd * repeat_size * _noise(rng, (m, u, j, r, t), sc.tails)
    values = judge_truth[:, None, :, None, :] + size * (answer + reaction) + repeat
    if sc.rounding:
        values = np.round(values / sc.rounding) * sc.rounding
    repeat_var = (sc.repeat_sd * repeat_size[:, 0, 0, 0]) ** 2  # [m, t]
    panel_var = (size[:, 0, 0, 0] ** 2 * (sc.answer_sd ** 2 + sc.judge_answer_sd ** 2 / j)
                 + repeat_var / (j * r)) / u
    names = [f"model-{i}" for i in range(m)]
    data = PanelData.from_array(values, dataset="simulated", models=names,
                                judges=[f"judge-{i}" for i in range(j)])
    return Simulated(data, judge_truth.mean(1), judge_truth, np.sqrt(panel_var),
                     {f"judge-{i}": names[i] for i in range(sc.own)})


SCENARIOS = (
    Scenario("homogeneous"),
    Scenario("models differ in answer noise (sd 1 of log variance, as llm-dreams)",
             spread=1.0, rounding=0.1),
    Scenario("models differ a lot, repetitions too (sd 1.5)", spread=1.5,
             spread_repeats=True),
    Scenario("noise differs by model and trait (sd 1)", trait_spread=1.0),
    Scenario("answer-set effects correlated over traits (0.6), spread 1", spread=1.0,
             correlation=0.6),
    Scenario("heavy tails (t, 4 df), spread 1", spread=1.0, tails=4.0),
    # As grok-4.3's and mistral-small's scores: a fifth of a judge's s2 are ties (0).
    Scenario("scores on a 0.5 grid, correlated (0.6), spread 1", spread=1.0, correlation=0.6,
             rounding=0.5),
)
POEM_SHAPE = Scenario("poem-eval's shape: 23 models, 5 poems, 1 judge, 6 traits",
                      models=23, units=5, judges=1, repeats=1, traits=6, spread=1.0,
                      own=0)
