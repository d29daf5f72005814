"""Anthropic HH-RLHF, harmless-base test split: one conversation with two final assistant
turns per line, the crowdworker's choice between them (anthropics/hh-rlhf)."""

from ffsite.datasets.record import Dataset, Source

DATASET = Dataset(
    id="hh_rlhf",
    name="HH-RLHF",
    package=__name__,
    source=Source("HH-RLHF", "https://github.com/anthropics/hh-rlhf", "MIT"),
    commit=None,  # files from the moving default branch
    kind="votes",
    measures=("2,312 conversations with a human-preferred (chosen) and a rejected final "
              "assistant turn: which reply crowdworkers found more harmless"),
    judges=("hh_rlhf_crowdworkers",),
    texts="reader:load_texts",
    command="command:import_command",
    order_unknown=True,
    defaults="defaults:write_defaults",
    files="files.toml",
)
