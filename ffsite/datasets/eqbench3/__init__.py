"""EQ-Bench 3: Claude 3.7 Sonnet's pairwise verdicts, criterion by criterion, on models'
transcripts of emotional-intelligence scenarios (EQ-bench/eqbench3)."""

from ffsite.datasets.record import Dataset, Source

DATASET = Dataset(
    id="eqbench3",
    name="EQ-Bench 3",
    package=__name__,
    source=Source("EQ-Bench 3", "https://github.com/EQ-bench/eqbench3", "MIT"),
    commit="8c3a1255591c55246e8e667e1e62b0eb639f42c3",
    kind="votes",
    measures=("Claude 3.7 Sonnet's pairwise verdicts, criterion by criterion, on 27 models' "
              "transcripts of emotional-intelligence scenarios"),
    judges=("claude-3.7-sonnet",),
    judge_models=(("claude-3.7-sonnet", "anthropic/claude-3.7-sonnet"),),  # it rated itself
    texts="reader:load_texts",
    command="command:import_command",
    defaults="defaults:write_defaults",
    files="files.toml",
    page="eqbench",
    builder="page:build",
    trait_page="criterion:trait_page",
    home="page:home_table",
    reasoning="reader:reasoning_in",
    viewer_note=("EQ-Bench 3 transcripts are not public: the viewer shows the scenario "
                 "prompt and the judge's reasoning in each order."),
    seed_is_order=True,
)
