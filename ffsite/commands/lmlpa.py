"""`ffsite lmlpa run`: a model answers LMLPA's open-ended BFI items and an AI rater scores
the answers, through an OpenAI-compatible API (ffsite.collect.lmlpa does the work)."""

from __future__ import annotations

from pathlib import Path

import click

from ffsite.collect.files import default_out, lmlpa_answers_file
from ffsite.collect.lmlpa.run import DATASET, RATER_MAX_TOKENS, Lmlpa, LmlpaSettings
from ffsite.commands._api import api_options, max_invalid_option
from ffsite.commands.options import TOKENS, out_option

SEEDS = click.IntRange(1, 100)


@click.group(name="lmlpa")
def lmlpa_group() -> None:
    """LMLPA: the Big Five from a model's open-ended answers, scored by an AI rater."""


@lmlpa_group.command(name="run")
@click.option("--model", required=True, help="The model that answers (its name on the API "
              "and on the site).")
@click.option("--rater", required=True, help="The rater model on the API (temperature 0).")
@click.option("--seeds", type=SEEDS, default=1, show_default=True,
              help="Runs: each item answered and rated once per seed 0..K-1 (test-retest "
              "needs --temperature above 0 or a provider that varies).")
@click.option("--order-reversal", is_flag=True,
              help="Also rate every answer with the options listed in reversed order.")
@click.option("--include-dropped", is_flag=True,
              help="Also ask the four items LMLPA's final version drops (Q22, Q31, Q35, Q41).")
@out_option("The scores file (default: annotations/lmlpa/<model>.parquet).")
@click.option("--answers-out", type=click.Path(dir_okay=False),
              help="Where the answers (texts) go, never under annotations/ "
              "(default: lmlpa-answers/<model>.json).")
@click.option("--temperature", type=click.FloatRange(0, 2), default=0.0, show_default=True,
              help="Sampling temperature of the answers (the rater always uses 0).")
@click.option("--max-tokens", type=TOKENS, default=512, show_default=True,
              help="Longest answer, in tokens.")
@click.option("--rater-max-tokens", type=TOKENS, default=RATER_MAX_TOKENS, show_default=True,
              help="Longest rating reply, in tokens (raise it for a reasoning model, "
              "whose hidden reasoning counts against it).")
@max_invalid_option("ratings")
@click.option("--dataset", default=DATASET, show_default=True,
              help="Dataset name the ratings are filed under.")
@api_options
def run(api, model: str, rater: str, seeds: int, order_reversal: bool, include_dropped: bool,
        out: str | None, answers_out: str | None, temperature: float, max_tokens: int,
        rater_max_tokens: int, max_invalid: float, dataset: str) -> None:
    """Ask --model every item (one call each, per seed), have --rater score each answer on
    the trait's five labelled points, and write the ratings as a scores file."""
    settings = LmlpaSettings(
        model=model, rater=rater, api=api.api,
        out=Path(out) if out else default_out("lmlpa", model),
        answers_out=Path(answers_out) if answers_out else lmlpa_answers_file(model),
        seeds=seeds, order_reversal=order_reversal, include_dropped=include_dropped,
        temperature=temperature, max_tokens=max_tokens, rater_max_tokens=rater_max_tokens,
        max_invalid=max_invalid, dataset=dataset)
    api.run(Lmlpa(settings))
