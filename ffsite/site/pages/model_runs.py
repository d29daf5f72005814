"""The annotation runs behind a model's comparisons, as its page lists them: each run
summary `ffsite annotate` wrote into a file's metadata, readable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ffsite.site.context import SiteContext


@dataclass(frozen=True)
class RunSummary:
    file: str  # the annotation file's name
    items: list[tuple[str, str]]  # (label, value), readable


def run_summaries(ctx: SiteContext, model: str) -> list[RunSummary]:
    """The summaries of the runs about `model` alone (`SiteContext.model_runs`)."""
    return [RunSummary(file, flatten(summary)) for file, summary in
            ctx.model_runs.get(model, [])]


# Readable labels of the keys `ffsite annotate` writes in a run summary (annotate/run.py);
# any other key is shown with its underscores as spaces.
SUMMARY_LABELS = {
    "tool": "Tool", "dataset": "Dataset", "model": "Model", "reference": "Reference model",
    "judge": "Judge", "judge_prompt": "Judge prompt version", "trait_set": "Trait set",
    "traits": "Traits", "prompts": "Prompts", "votes_per_comparison": "Votes per comparison",
    "combine": "Votes combined by", "seed": "Seed", "responses": "Responses",
    "temperature": "Temperature", "max_tokens": "Longest answer (tokens)",
    "calls": "API calls", "generation_calls": "Answer calls", "judge_calls": "Judge calls",
    "failed_calls": "Failed calls", "retries": "Retries", "votes": "Votes",
    "invalid_votes": "Invalid votes", "invalid_rate": "Invalid share",
    "prompt_tokens": "Tokens in", "completion_tokens": "Tokens out",
    "total_tokens": "Tokens in all", "cost_usd": "Cost (US$)", "cost_source": "Cost from",
    "complete": "Complete run",
}


def flatten(summary: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """(label, value) pairs of a run summary, readable: known keys get their label, empty
    values (None, "") are left out, yes/no for true/false; nested mappings become
    "outer: inner" labels."""
    items = []
    for key, value in summary.items():
        label = prefix + SUMMARY_LABELS.get(key, str(key).replace("_", " "))
        if isinstance(value, dict):
            items.extend(flatten(value, f"{label}: "))
        elif value is None or value == "":
            continue
        elif isinstance(value, bool):
            items.append((label, "yes" if value else "no"))
        elif key == "invalid_rate" and isinstance(value, int | float):
            items.append((label, f"{value:.1%}"))
        elif key == "cost_usd" and isinstance(value, int | float):
            items.append((label, f"${value:,.4f}"))
        elif isinstance(value, float):
            items.append((label, f"{value:,.4g}"))
        elif isinstance(value, int) and key != "seed":
            items.append((label, f"{value:,}"))
        else:
            items.append((label, str(value)))
    return items
