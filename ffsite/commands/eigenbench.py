"""`ffsite eigenbench`: models judging each other against a constitution (seed 002).

`run` collects judgments through an OpenAI-compatible API (ffsite.collect.eigenbench);
`fit` rates the models from judgments in annotation files (ffsite.metrics.eigenbench)."""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np

from ffsite.collect.eigenbench.constitution import SHIPPED, load_constitution
from ffsite.collect.eigenbench.design import RunSettings, check_models
from ffsite.collect.eigenbench.run import EigenBench
from ffsite.collect.eigenbench.scenarios import load_scenarios
from ffsite.collect.files import default_out, responses_file
from ffsite.commands._api import api_options, max_invalid_option
from ffsite.commands._output import emit, render
from ffsite.commands.options import (
    BOOTSTRAP,
    PROMPTS,
    SEED,
    TOKENS,
    annotation_paths,
    base_data_option,
    content_option,
    format_option,
    out_option,
)
from ffsite.datasets import DATASETS, DEFAULT_PROMPT_SET, PANELS
from ffsite.errors import FfsiteError
from ffsite.format.read import read_annotations
from ffsite.format.scores import read_scores
from ffsite.metrics.big_five import split_lmlpa
from ffsite.metrics.eigenbench import (
    derived_constitutions,
    eigenbench,
    judgments_from_annotations,
)
from ffsite.metrics.judges import pool_panels
from ffsite.models import load_registry

DIMS = click.IntRange(1, 64)


@click.group(name="eigenbench")
def eigenbench_group() -> None:
    """EigenBench: models judge each other's answers against a constitution."""


@eigenbench_group.command(name="run")
@click.option("--model", "models", multiple=True, required=True,
              help="A model of the population (its name on the API); give three or more. "
              "Each answers the scenarios and judges the others.")
@click.option("--constitution", required=True,
              help=f"{' or '.join(SHIPPED)} (shipped), or a file of criteria: one per line, "
              "or a JSON list of them as EigenBench publishes its constitutions (its name "
              "is the file's stem).")
@click.option("--prompts", "dataset", default=DEFAULT_PROMPT_SET.id, show_default=True,
              help=f"The scenarios: {DEFAULT_PROMPT_SET.id} (from the base data), or a file of "
              "prompts (one per line, or a JSON/JSONL list of strings or of records with "
              "'prompt').")
@click.option("--scenarios", type=PROMPTS,
              help="Only the first N scenarios (by prompt id): a cheap trial. Default: all.")
@click.option("--pairs-per-judge", type=click.IntRange(1, 100), default=1,
              show_default=True, help="Pairs of other models each judge compares per "
              "scenario (each in both orders).")
@click.option("--self-judgments/--no-self-judgments", default=True, show_default=True,
              help="Whether a judge is also given pairs that include its own answer, as "
              "often as any other pair (the paper's design). Without them a judge's "
              "self-trust is extrapolated and the intervals widen.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the pair sampling and the sides.")
@out_option("The votes file (default: annotations/eigenbench/<constitution>.parquet).")
@click.option("--responses-out", type=click.Path(dir_okay=False),
              help="Where the models' answers go (default: beside --out, .responses.json).")
@click.option("--max-tokens", type=TOKENS, default=2048, show_default=True,
              help="Longest answer to a scenario, in tokens.")
@click.option("--reflection-max-tokens", type=TOKENS, default=1024, show_default=True,
              help="Longest reflection, in tokens.")
@click.option("--judge-max-tokens", type=TOKENS, default=512, show_default=True,
              help="Longest verdict, in tokens.")
@click.option("--temperature", type=float, default=0.0, show_default=True,
              help="Sampling temperature of the answers (judges answer at 0).")
@max_invalid_option()
@base_data_option()
@api_options
def run(api, models, constitution, dataset, scenarios, pairs_per_judge, self_judgments,
        seed, out, responses_out, max_tokens, reflection_max_tokens, judge_max_tokens,
        temperature, max_invalid, base_data) -> None:
    """Collect judgments: every model answers the scenarios, then judges pairs of the
    population's answers, its own among them, against the constitution (reflect on each,
    then compare, both orders). Writes an annotation file for `ffsite eigenbench fit` and
    the site."""
    chosen = load_constitution(constitution)
    if not self_judgments:
        click.echo("warning: --no-self-judgments: no judge sees its own answer, so each "
                   "judge's trust in itself (T_ii) is extrapolated from its lens and "
                   "disposition rather than observed; EigenTrust still weights it, and the "
                   "intervals widen (docs/eigenbench.md, Identification)", err=True)
    out_path = Path(out) if out else default_out("eigenbench", chosen.name)
    settings = RunSettings(
        models=check_models(list(models)), constitution=chosen, out=out_path,
        responses_out=Path(responses_out) if responses_out else responses_file(out_path),
        api=api.api, pairs_per_judge=pairs_per_judge, self_judgments=self_judgments,
        scenarios=scenarios, seed=seed,
        temperature=temperature, max_tokens=max_tokens,
        reflection_max_tokens=reflection_max_tokens, judge_max_tokens=judge_max_tokens,
        max_invalid=max_invalid)
    api.run(EigenBench(settings, load_scenarios(dataset, base_data)))


@eigenbench_group.command(name="fit")
@annotation_paths
@click.option("--constitution", default=None, metavar="NAME",
              help="The constitution (trait set), or one criterion (trait id or wording), "
                   "whose judgments to fit; or a set of judgments a dataset derives from "
                   "its scores (llm-dreams' traits: llm-dreams-creativity, ...). Needed "
                   "only when the files hold several.")
@click.option("--dims", type=DIMS, default=None,
              help="Dimension d of lenses and dispositions. Default: the d in 1-4 with "
                   "the best held-out log-likelihood.")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(0, BOOTSTRAP.max),
              default=200, show_default=True,
              help="Bootstrap refits (resampling comparisons) for the 95% intervals; 0: none.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the start, the held-out split and the bootstrap.")
@content_option
@format_option
def fit(paths: tuple[str, ...], constitution: str | None, dims: int | None,
        n_bootstrap: int, seed: int, content: str, fmt: str) -> None:
    """Fit the low-rank Bradley-Terry-Davidson model to the judgments and print each
    model's EigenTrust Elo (model, elo, ci_low, ci_high, trust).

    A judgment is a trait vote whose judge is one of the compared models, or one a
    dataset derives from its judges' scores (named as the site names the models, by
    --content's models.toml); the JSON also carries lenses, dispositions, tie
    propensities, the diagnostics and whether the ratings are identified."""
    annotations = read_annotations(paths)
    derived = derived_judgments(paths, content)
    chosen = next((d for d in derived if constitution in (d.name, d.label, d.trait_id)),
                  None)
    if chosen is not None:
        judgments = chosen.judgments
    else:
        try:
            judgments = judgments_from_annotations(annotations, constitution)
        except FfsiteError as exc:
            if not derived:
                raise
            raise FfsiteError(f"{exc}; or one derived from scores: "
                              + ", ".join(d.name for d in derived)) from None
    if dims is not None and dims >= judgments.n_models:
        raise FfsiteError(f"--dims {dims}: must be below the number of models "
                          f"({judgments.n_models}); give a smaller --dims or leave it out")
    result = eigenbench(judgments, dims=dims, n_bootstrap=n_bootstrap, seed=seed)
    if fmt != "json":
        emit(result.ratings, fmt)
        return
    identification = result.identification
    document = {
        "models": list(result.models),
        "dims": result.dims,
        "judgments": result.n_judgments,
        "comparisons": result.n_comparisons,
        "bootstrap": result.n_bootstrap,
        "seed": seed,
        "notes": result.notes,
        "derivation": chosen.derivation if chosen is not None else None,
        "converged": result.fit.converged,
        "ratings": records_json(result.ratings),
        "lenses": result.fit.lenses.tolist(),
        "dispositions": result.fit.dispositions.tolist(),
        "lambdas": result.fit.lambdas.tolist(),
        "trust_matrix": result.trust.tolist(),
        "held_out": records_json(result.held_out),
        "judges": records_json(result.judges),
        "identification": {
            "weakly_identified": identification.weak,
            "reasons": list(identification.reasons),
            "restarts": identification.restarts,
            "restarts_at_best": identification.restarts_at_best,
            "restart_spread": identification.restart_spread,
            "refits_disagreeing": identification.refits_disagreeing,
            "widest_interval": identification.widest_interval,
            "judges_without_self_judgments": list(identification.without_self_judgments),
        },
    }
    click.echo(json.dumps(_finite(document), indent=2, ensure_ascii=False))


def derived_judgments(paths: tuple[str, ...], content: str) -> list:
    """The judgments datasets derive from the scores in `paths`, models named by the
    registry in `content`, as `ffsite build` derives them."""
    scores, _ = split_lmlpa(read_scores(paths))
    if not len(scores):
        return []
    pooled, members = pool_panels(scores, PANELS)
    return derived_constitutions(DATASETS, pooled, members, PANELS, load_registry(content))


def _finite(value):
    """NaN and infinities as null, as `--format json` prints tables."""
    if isinstance(value, float):
        return value if np.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def records_json(frame) -> list[dict]:
    """Rows as JSON values (NaN as null), as `--format json` prints tables."""
    return json.loads(render(frame, "json"))
