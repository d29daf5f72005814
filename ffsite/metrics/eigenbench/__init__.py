"""EigenBench (seed 002; methods.md section 3): models judge each other's answers against a
constitution, and one rating per model comes out that no single judge dictates.

The path, top to bottom:
1. `judgments.py`: trait votes whose judge is one of the compared models become judgments
   (judge i, evaluees j and k, outcome), after the both-orders rule; counts of them per
   judge, pair and outcome, for one data set or many resamples at once.
2. `btd.py`, `newton.py`: the low-rank Bradley-Terry-Davidson model and its fit by
   maximum likelihood (a damped Newton method on a whole batch of problems at once).
3. `trust.py`: the trust matrix T, its left principal eigenvector t and
   Elo_j = 1500 + 400 log10(N t_j).
4. `method.py`: all of it, with d chosen by held-out log-likelihood when not given,
   several cold starts, seeded bootstrap intervals (resampling comparisons), the
   diagnostics the method needs to be trusted and whether its ratings are identified.
"""

from ffsite.metrics.eigenbench.btd import (
    FIRST,
    INIT_SCALE,
    LOG_LAMBDA_BOUNDS,
    OUTCOMES,
    RIDGE,
    SECOND,
    TIE,
    BtdFit,
    Fits,
    cold_starts,
    log_likelihood,
    log_likelihoods,
    pair_counts,
)
from ffsite.metrics.eigenbench.derived import derived_constitutions
from ffsite.metrics.eigenbench.judgments import (
    MIN_MODELS,
    Derived,
    Judgments,
    both_orders_rule,
    constitutions,
    count_tensor,
    judgments_from_annotations,
    resampled_counts,
    select_annotators,
)
from ffsite.metrics.eigenbench.method import (
    BOOTSTRAP_STARTS,
    DIMENSION_CHOICES,
    HELD_OUT_FOLDS,
    RESTARTS,
    WIDE_INTERVAL,
    Bootstrap,
    EigenBenchResult,
    Identification,
    bootstrap,
    bootstrap_elo,
    eigenbench,
    held_out_log_likelihood,
    judge_diagnostics,
    ratings_of,
)
from ffsite.metrics.eigenbench.newton import fit_btd, fit_many, fit_restarts
from ffsite.metrics.eigenbench.trust import (
    ELO_BASE,
    ELO_SCALE,
    POWER_TOLERANCE,
    eigentrust,
    elo_from_trust,
    self_preference,
    trust_matrix,
)

__all__ = [
    "BOOTSTRAP_STARTS", "DIMENSION_CHOICES", "ELO_BASE", "ELO_SCALE", "FIRST",
    "HELD_OUT_FOLDS", "INIT_SCALE", "LOG_LAMBDA_BOUNDS", "MIN_MODELS", "OUTCOMES",
    "POWER_TOLERANCE", "RESTARTS", "RIDGE", "SECOND", "TIE", "WIDE_INTERVAL", "Bootstrap",
    "BtdFit", "Derived", "EigenBenchResult", "Fits", "Identification", "Judgments",
    "bootstrap", "bootstrap_elo", "both_orders_rule", "cold_starts", "constitutions",
    "count_tensor", "derived_constitutions", "eigenbench", "eigentrust", "elo_from_trust",
    "fit_btd", "fit_many", "fit_restarts", "held_out_log_likelihood", "judge_diagnostics",
    "judgments_from_annotations", "log_likelihood", "log_likelihoods", "pair_counts",
    "ratings_of", "resampled_counts", "select_annotators", "self_preference",
    "trust_matrix",
]

