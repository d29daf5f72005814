"""`ffsite annotate`: add a model's trait votes through an OpenAI-compatible API."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from ffsite._names import safe_name
from ffsite.annotate import inputs
from ffsite.annotate.cache import default_cache_dir
from ffsite.annotate.client import (
    BASE_URL_VARIABLE,
    RetryPolicy,
    endpoint_from_env,
    insecure_base_url,
)
from ffsite.annotate.cost import load_prices
from ffsite.annotate.plan import MAX_INVALID, RULES_JUDGE, Settings, make_judge
from ffsite.annotate.run import annotate_model
from ffsite.base import alpaca_eval
from ffsite.commands.options import (
    ATTEMPTS,
    CONCURRENCY,
    PROMPTS,
    SEED,
    TOKENS,
    VOTES,
    annotations_option,
    base_data_option,
    out_option,
)
from ffsite.errors import FfsiteError
from ffsite.metrics.combine import RULES as COMBINE_RULES


@click.command(name="annotate")
@click.option("--model", help="The model to add (its name on the API and on the site).")
@click.option("--responses", type=click.Path(dir_okay=False, exists=True),
              help="Use these answers (JSON, JSONL or Parquet: prompt_id or instruction, and "
              "response or output) instead of generating them.")
@click.option("--prompts", "dataset", default=alpaca_eval.NAME, show_default=True,
              help="The prompt set.")
@click.option("--limit", type=PROMPTS,
              help="Only the first N prompts (by prompt id): a cheap trial.")
@click.option("--reference", default=alpaca_eval.REFERENCE_MODEL, show_default=True,
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
@click.option("--concurrency", type=CONCURRENCY, default=16, show_default=True,
              help="API calls in flight at most.")
@click.option("--max-cost", type=click.FloatRange(min=0),
              help="Spend at most this many USD in this run (cached calls are free).")
@click.option("--prices", type=click.Path(dir_okay=False, exists=True),
              help='Price file: {"model": {"input": USD per 1M tokens, "output": ...}}.')
@click.option("--dry-run", is_flag=True, help="Estimate calls, tokens and cost; send nothing.")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="Where answered calls are kept (default: ~/.cache/ffsite/annotate).")
@out_option("The votes file (default: annotations/contrib/<model>.parquet).")
@click.option("--responses-out", type=click.Path(dir_okay=False),
              help="Where generated answers go (default: beside --out, .responses.json).")
@click.option("--max-tokens", type=TOKENS, default=2048, show_default=True,
              help="Longest generated answer, in tokens.")
@click.option("--judge-max-tokens", type=TOKENS, default=1024,
              show_default=True, help="Longest judge answer, in tokens.")
@click.option("--temperature", type=float, default=0.0, show_default=True,
              help="Sampling temperature of answers and judge calls.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0,
              show_default=True, help="Seconds per attempt.")
@click.option("--max-attempts", type=ATTEMPTS, default=5, show_default=True,
              help="Attempts per call before its votes become invalid.")
@click.option("--backoff", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Seconds before the first retry; doubles per attempt (with jitter).")
@click.option("--max-invalid", type=click.FloatRange(0, 1), default=MAX_INVALID,
              show_default=True, help="Fail (write nothing) when a larger share of the "
              "votes is invalid.")
@base_data_option()
@click.option("--dataset", "rules_dataset",
              help="With --judge rules and no --model: judge every comparison of this "
              "dataset in --annotations.")
@annotations_option("With --dataset: where its comparisons are.", folder=False)
@click.option("--log", "log_file", type=click.Path(dir_okay=False),
              help="Append retries and failures to this file.")
def annotate(model, responses, dataset, limit, reference, judge, traits_option, votes,
             combine, seed, concurrency, max_cost, prices, dry_run, cache_dir, out,
             responses_out, max_tokens, judge_max_tokens, temperature, timeout, max_attempts,
             backoff, max_invalid, base_data, rules_dataset, annotations, log_file) -> None:
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
    out_path = Path(out or Path("annotations") / "contrib" / f"{safe_name(model)}.parquet")
    settings = Settings(
        model=model, judge=chosen, out=out_path,
        cache_dir=Path(cache_dir) if cache_dir else default_cache_dir(),
        responses=Path(responses) if responses else None,
        responses_out=Path(responses_out) if responses_out else out_path.with_name(
            out_path.name.removesuffix(".parquet") + ".responses.json"),
        limit=limit, combine=combine, seed=seed, concurrency=concurrency, max_cost=max_cost,
        prices=load_prices(prices), temperature=temperature, max_tokens=max_tokens,
        policy=RetryPolicy(max_attempts=max_attempts, timeout=timeout, backoff=backoff),
        max_invalid=max_invalid)
    prompts = inputs.load_prompt_set(dataset, base_data, reference)
    endpoint = endpoint_from_env()
    if insecure_base_url(endpoint.base_url):
        click.echo(f"warning: {BASE_URL_VARIABLE} {endpoint.redact(endpoint.base_url)} is "
                   "plain HTTP to another machine: the API key crosses the network readable; "
                   "use https://", err=True)
    handler = _log_to(log_file)
    try:
        annotate_model(settings, prompts, endpoint, dry=dry_run, echo=click.echo)
    finally:
        if handler is not None:
            logging.getLogger("ffsite.annotate").removeHandler(handler)
            handler.close()


def _log_to(path: str | None) -> logging.Handler | None:
    if path is None:
        return None
    try:
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError as exc:
        raise FfsiteError(f"--log {path}: cannot open it ({exc.strerror}); create its folder "
                          "or pick another --log") from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("ffsite.annotate")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return handler
