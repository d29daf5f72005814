"""`ffsite protocol`: add a model to a judged dataset the way the dataset's own numbers
were made (ffsite.collect.protocol does the work; each dataset's folder holds its
protocol)."""

from __future__ import annotations

from pathlib import Path

import click

from ffsite.collect.protocol.setup import Choices, choose_judges, find_protocol, method, protocols
from ffsite.collect.protocol.show import describe
from ffsite.commands._api import api_options, max_invalid_option
from ffsite.commands.options import PROMPTS, SEED, TOKENS, base_data_option, out_option

COUNT = click.IntRange(1, 100)
SHARE = click.FloatRange(0, 1)


@click.group(name="protocol")
def protocol_group() -> None:
    """Judged datasets' protocols: add a model the way a dataset made its numbers."""


@protocol_group.command(name="list")
def list_protocols() -> None:
    """Every protocol: its name, dataset and what a run does."""
    for name, protocol in sorted(protocols().items()):
        click.echo(f"{name}: {protocol.dataset} ({protocol.kind}) - {protocol.about}")


@protocol_group.command(name="show")
@click.argument("name")
@base_data_option("Base-data folder: with it, the prompts and calls are counted.")
def show(name: str, base_data: Path | None) -> None:
    """What protocol NAME sends, who judges, how often, and what it cannot reproduce."""
    for line in describe(find_protocol(name), base_data):
        click.echo(line)


@protocol_group.command(name="run")
@click.argument("name")
@click.option("--model", "models", multiple=True, required=True,
              help="The model to add (its name on the API and on the site); a panel "
              "protocol takes several.")
@click.option("--judge", "judges", multiple=True,
              help="Judge with this model instead of the protocol's judges (repeat for "
              "several): the numbers are then kept apart from the dataset's.")
@click.option("--judge-model", "judge_models", multiple=True, metavar="NAME=MODEL",
              help="The API model that stands for the protocol's judge NAME on your "
              "provider (still that judge: comparable).")
@click.option("--limit", type=PROMPTS, help="Only the first N units (answers, answer "
              "sets, or comparisons per trait): a cheap trial.")
@click.option("--answer-sets", type=COUNT, help="Answers per prompt (scored protocols).")
@click.option("--repetitions", type=COUNT, help="Each judge's calls per unit (scored).")
@click.option("--reasks", type=click.IntRange(0, 10),
              help="Ask again this often when a reply cannot be read.")
@click.option("--temperature", type=click.FloatRange(0, 2),
              help="Sampling temperature of the answers (default: the protocol's).")
@click.option("--max-tokens", type=TOKENS, help="Longest answer, in tokens.")
@click.option("--judge-temperature", type=click.FloatRange(0, 2),
              help="Sampling temperature of the judges.")
@click.option("--judge-max-tokens", type=TOKENS, help="Longest judge reply, in tokens.")
@click.option("--anchor", help="Panel protocols: the model fixed at Elo 1000.")
@click.option("--comparisons", type=click.IntRange(1, 1000),
              help="Panel protocols: target comparisons per model and trait.")
@click.option("--anchor-share", type=SHARE,
              help="Panel protocols: the share of a model's comparisons against the anchor.")
@click.option("--population", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="Panel protocols: answers of models already rated (.responses.json of "
              "earlier runs; default: those beside the dataset's contributions).")
@click.option("--seed", type=SEED, help="Panel protocols: the seed of the design.")
@click.option("--votes", type=COUNT, help="FF protocols: judge votes per comparison.")
@click.option("--responses", type=click.Path(dir_okay=False, exists=True),
              help="FF protocols: use these answers instead of generating them.")
@out_option("The scores or votes file (default: annotations/contrib/<dataset>/<model>"
            ".parquet).")
@click.option("--responses-out", type=click.Path(dir_okay=False),
              help="Where the answers go (default: beside --out, .responses.json).")
@max_invalid_option("ratings or votes")
@base_data_option()
@api_options
def run(api, name: str, models: tuple[str, ...], judges: tuple[str, ...],
        judge_models: tuple[str, ...], limit: int | None, out: str | None,
        responses_out: str | None, max_invalid: float, base_data: Path | None,
        **options) -> None:
    """Run protocol NAME for --model: it answers the dataset's prompts, the protocol's
    judges score or compare the answers, and the scores or votes are written with the
    answers beside them."""
    protocol = find_protocol(name)
    choices = Choices(
        models=models, judges=choose_judges(protocol, judges, judge_models), api=api.api,
        base_dir=base_data, out=Path(out) if out else None,
        responses_out=Path(responses_out) if responses_out else None, limit=limit,
        max_invalid=max_invalid, options=options)
    api.run(method(protocol, choices))
