"""`ffsite annotate`: add a model's trait votes through an OpenAI-compatible API."""

from __future__ import annotations

from pathlib import Path

import click

from ffsite._names import safe_name
from ffsite.collect.annotate.inputs import load_prompt_set, resolve_traits
from ffsite.collect.annotate.llm_judge import LlmJudge
from ffsite.collect.annotate.plan import Settings
from ffsite.collect.annotate.run import Annotate
from ffsite.collect.files import default_out, responses_file
from ffsite.commands._api import api_options, max_invalid_option
from ffsite.commands.options import (
    PROMPTS,
    SEED,
    TOKENS,
    VOTES,
    annotations_option,
    base_data_option,
    out_option,
)
from ffsite.datasets import DEFAULT_PROMPT_SET
from ffsite.errors import FfsiteError
from ffsite.judges.judge import Judge
from ffsite.metrics.combine import RULES as COMBINE_RULES

RULES_JUDGE = "rules"  # --judge rules: the rule-based judge; any other name is an API model


def make_judge(name: str, *, traits: str | None = None, votes: int = 1, seed: int = 0,
               temperature: float = 0.0, max_tokens: int = 1024) -> Judge:
    """The judge `--judge name` asks for, with the options that apply to it.

    `traits` is a --traits value (default v1); `votes`, `temperature` and `max_tokens`
    are the LLM judge's."""
    if name == RULES_JUDGE:
        if traits is not None or votes != 1:
            raise FfsiteError("--judge rules votes once on its own traits; drop --traits/--votes")
        from ffsite.judges.rules import RulesJudge  # imported late: the API path needs none

        return RulesJudge(seed)
    return LlmJudge(name, resolve_traits(traits or "v1"), n_votes=votes, seed=seed,
                    temperature=temperature, max_tokens=max_tokens)


@click.command(name="annotate")
@click.option("--model", help="The model to add (its name on the API and on the site).")
@click.option("--responses", type=click.Path(dir_okay=False, exists=True),
              help="Use these answers (JSON, JSONL or Parquet: prompt_id or instruction, and "
              "response or output) instead of generating them.")
@click.option("--prompts", "dataset", default=DEFAULT_PROMPT_SET.id, show_default=True,
              help="The prompt set.")
@click.option("--limit", type=PROMPTS,
              help="Only the first N prompts (by prompt id): a cheap trial.")
@click.option("--reference", default=DEFAULT_PROMPT_SET.reference_model, show_default=True,
              help="The model every answer is compared with (its answers come from base data).")
@click.option("--judge", required=True,
              help=f"The judge model on the API, or '{RULES_JUDGE}' for the rule-based judge.")
@click.option("--traits", "traits_option",
              help="v1 (FF's 40 traits, default), aa30, or a file of wordings (one per line "
              "or a JSON list).")
@click.option("--votes", type=VOTES, default=1, show_default=True,
              help="Independent judge votes per comparison (different seeds and orders).")
@click.option("--combine", type=click.Choice(COMBINE_RULES), default="majority",
              show_default=True, help="How the site combines repeated votes (all are stored).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the side flip (keep 0: the site's files use it); vote k uses "
              "seed+k for the order the judge sees.")
@out_option("The votes file (default: annotations/contrib/<model>.parquet).")
@click.option("--responses-out", type=click.Path(dir_okay=False),
              help="Where generated answers go (default: beside --out, .responses.json).")
@click.option("--max-tokens", type=TOKENS, default=2048, show_default=True,
              help="Longest generated answer, in tokens.")
@click.option("--judge-max-tokens", type=TOKENS, default=1024,
              show_default=True, help="Longest judge answer, in tokens.")
@click.option("--temperature", type=float, default=0.0, show_default=True,
              help="Sampling temperature of answers and judge calls.")
@max_invalid_option()
@base_data_option()
@click.option("--dataset", "rules_dataset",
              help="With --judge rules and no --model: judge every comparison of this "
              "dataset in --annotations.")
@annotations_option("With --dataset: where its comparisons are.", folder=False)
@api_options
def annotate(api, model, responses, dataset, limit, reference, judge, traits_option, votes,
             combine, seed, out, responses_out, max_tokens, judge_max_tokens, temperature,
             max_invalid, base_data, rules_dataset, annotations) -> None:
    """Add a model: its answers, judged trait by trait against the reference's answers."""
    if rules_dataset is not None:
        chosen = make_judge(judge)
        if chosen.api_models or model is not None:
            raise FfsiteError("--dataset works with --judge rules and without --model")
        from ffsite.judges.apply import annotate_dataset  # the dataset path's own module

        target = out or str(Path("annotations") / safe_name(rules_dataset) / "rules.parquet")
        click.echo(annotate_dataset([annotations], dataset=rules_dataset,
                                    base_dir=base_data, out=target, judge=chosen))
        return
    if model is None:
        raise FfsiteError("--model is required (or --judge rules --dataset NAME)")
    chosen = make_judge(judge, traits=traits_option, votes=votes, seed=seed,
                        temperature=temperature, max_tokens=judge_max_tokens)
    out_path = Path(out) if out else default_out("contrib", model)
    settings = Settings(
        model=model, judge=chosen, out=out_path, api=api.api,
        responses=Path(responses) if responses else None,
        responses_out=Path(responses_out) if responses_out else responses_file(out_path),
        limit=limit, combine=combine, seed=seed, temperature=temperature,
        max_tokens=max_tokens, max_invalid=max_invalid)
    api.run(Annotate(settings, load_prompt_set(dataset, base_data, reference)))
