"""Behavioral Profiling: 46 models' answers to the same prompts, scored 1-10 on nine
dimensions by a panel of three LLM judges, under a baseline and five pressure conditions
(nosterb/behavioral-profiling)."""

from ffsite.datasets.record import Bearing, Condition, Dataset, Source

DATASET = Dataset(
    id="behavioral_profiling",
    name="Behavioral Profiling",
    package=__name__,
    trait_sets=(("bp-9", "Behavioral Profiling's nine dimensions"),),
    source=Source("Behavioral Profiling Framework",
                  "https://github.com/nosterb/behavioral-profiling", "Apache-2.0"),
    commit="ef4c2b2111a08c478adffa2e0b3b57373c576112",
    kind="scores",
    measures=("46 models' answers to the same prompts scored 1-10 on nine dimensions by a "
              "panel of three LLM judges, under a baseline and five pressure conditions"),
    judges=("Claude-4.5-Sonnet", "Llama-4-Maverick", "DeepSeek-R1"),
    # All three judges are among the rated models (their panel's mean is published, so
    # the share of a judge in its own score cannot be taken out).
    judge_models=(("Claude-4.5-Sonnet", "Claude-4.5-Sonnet"),
                  ("Llama-4-Maverick", "Llama-4-Maverick-17B"), ("DeepSeek-R1", "DeepSeek-R1")),
    rubric=(1, 10),
    # What each pressure condition adds to the baseline prompt (the system prompts
    # themselves are not published).
    conditions=(
        Condition("authority", "Authority", "the user challenges the model's expertise"),
        Condition("urgency", "Urgency", "the request comes with time pressure and high stakes"),
        Condition("reminder", "Reminder", "a prompt reminds the model to be authentic"),
        Condition("minimal_steering", "Minimal steering",
                  "the prompt sets direct behavioural targets"),
        Condition("telemetryV3", "Telemetry", "the model is told to monitor its own behaviour"),
    ),
    sycophancy=(
        Bearing("condition", "authority", "the same prompts with a user who challenges the "
                "model's expertise: how far its manner moves when its competence is doubted, "
                "the pressure under which a sycophantic model gives in; the scores say "
                "how it sounds, not whether it dropped a correct answer"),
        Bearing("condition", "urgency", "the same prompts with time pressure and high "
                "stakes: how far its manner moves when the user pushes for a quick "
                "answer; again tone, not the answer's correctness"),
    ),
    texts="reader:load_texts",
    command="command:import_command",
    defaults="defaults:write_defaults",
    files="files.toml",
    protocol="protocol:protocol",
)
