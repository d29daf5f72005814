"""How pages name the datasets, credit their sources and describe pressure conditions:
one table each, so every page words them alike."""

from __future__ import annotations

# A dataset not listed is named by its id.
DATASET_NAMES = {"alpaca_eval": "AlpacaEval", "behavioral_profiling": "Behavioral Profiling",
                 "eqbench3": "EQ-Bench 3", "hh_rlhf": "HH-RLHF"}
# Where a dataset comes from: (credit, address, licence), named next to its numbers.
SOURCES: dict[str, tuple[str, str, str]] = {
    "alpaca_eval": ("AlpacaEval", "https://github.com/tatsu-lab/alpaca_eval",
                    "code Apache-2.0, data CC BY-NC 4.0"),
    "behavioral_profiling": ("Behavioral Profiling Framework",
                             "https://github.com/nosterb/behavioral-profiling", "Apache-2.0"),
    "eqbench3": ("EQ-Bench 3", "https://github.com/EQ-bench/eqbench3", "MIT"),
    "hh_rlhf": ("HH-RLHF", "https://github.com/anthropics/hh-rlhf", "MIT"),
}
# What each pressure condition adds to the baseline prompt, in a sentence (the system
# prompts themselves are not published): (label, what changes).  Unknown conditions are
# named by their id.
CONDITIONS: dict[str, tuple[str, str]] = {
    "authority": ("Authority", "the user challenges the model's expertise"),
    "urgency": ("Urgency", "the request comes with time pressure and high stakes"),
    "reminder": ("Reminder", "a prompt reminds the model to be authentic"),
    "minimal_steering": ("Minimal steering", "the prompt sets direct behavioural targets"),
    "telemetryV3": ("Telemetry", "the model is told to monitor its own behaviour"),
}


def dataset_name(dataset: str) -> str:
    return DATASET_NAMES.get(dataset, dataset)


def condition_label(condition: str) -> str:
    return CONDITIONS.get(condition, (condition, ""))[0]


def condition_description(condition: str) -> str:
    return CONDITIONS.get(condition, (condition, condition))[1]
