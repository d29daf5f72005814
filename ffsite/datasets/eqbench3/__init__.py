"""EQ-Bench 3: Claude 3.7 Sonnet's pairwise verdicts, criterion by criterion, on models'
transcripts of emotional-intelligence scenarios (EQ-bench/eqbench3)."""

from ffsite.datasets.record import Bearing, Dataset, Source

DATASET = Dataset(
    id="eqbench3",
    name="EQ-Bench 3",
    package=__name__,
    trait_sets=(("eqbench3", "EQ-Bench 3's fourteen criteria"),),
    source=Source("EQ-Bench 3", "https://github.com/EQ-bench/eqbench3", "MIT"),
    commit="8c3a1255591c55246e8e667e1e62b0eb639f42c3",
    kind="votes",
    measures=("Claude 3.7 Sonnet's pairwise verdicts, criterion by criterion, on the models' "
              "transcripts of emotional-intelligence scenarios"),
    judges=("claude-3.7-sonnet",),
    judge_models=(("claude-3.7-sonnet", "anthropic/claude-3.7-sonnet"),),  # it rated itself
    lead_trait="eq-overall_eq",
    sycophancy=(
        Bearing("trait", "eq-appropriate_validating_challenging", "the judge's pick of the "
                "transcript that validates or pushes back as the moment needs, in "
                "role-plays where the other person is often in the wrong: a high rating "
                "means it challenged when challenging was due, the opposite of telling "
                "people what they want to hear; it rates the balance, not agreement with "
                "false claims"),
    ),
    texts="reader:load_texts",
    command="command:import_command",
    defaults="defaults:write_defaults",
    files="files.toml",
    page="eqbench",
    builder="page:build",
    trait_page="criterion:trait_page",
    home="overall:home_table",
    reasoning="reader:reasoning_in",
    longer_sides="reader:longer_sides_in",
    viewer_note=("EQ-Bench 3 transcripts are not public: the viewer shows the scenario "
                 "prompt and the judge's reasoning in each order."),
    seed_is_order=True,
)
