"""The model registry against the real names of llm-dreams and poem-eval (../shared/data):
every name has exactly one entry, no two names of a dataset share one, the judges of
llm-dreams are rated models, release dates come from the sources, and the doubtful cases
stay apart.  Also EQ-Bench 3's two runs of chatgpt-4o-latest, split (issue 23)."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from ffsite.models import load_registry

REPO = Path(__file__).resolve().parents[1]
CONTENT = REPO / "content"
LD, PE = "llm_dreams", "poem_eval"
ANSWER = re.compile(r"(?P<model>.+)__dream(?P<dream>\d{3})__(?P<k>\d+)\.txt")

# llm-dreams' judges (its README): eight of the nine are rated models.
JUDGES = {"gpt-5.6-sol": "openaigpt-5.6-sol", "gpt-5.6-terra": "openaigpt-5.6-terra",
          "gpt-5.5": "gpt-5.5-2026-04-23", "grok-4.3": "Grok-4.3-20260530",
          "grok-4.5": "x-aigrok-4.5", "grok-4.6": "x-aigrok-4.6",
          "qwen3.6-plus": "qwenqwen3.6-plusfree", "mistral-small-2603": "mistral-small-2603"}

# Names that share an entry with a model of an earlier dataset (alpaca_eval,
# behavioral_profiling, eqbench3): the same dated snapshot, or a name of a model with one
# release.  Each entry's note says why where the spelling does not.
SHARED = {
    LD: {"gpt-4-0613": "gpt4_0613", "gpt-4-1106-preview": "gpt4_1106_preview",
         "gpt-4-turbo-2024-04-09": "gpt-4-turbo-2024-04-09", "gpt-4.1-2025-04-14": "gpt-4.1",
         "gpt-4.1-mini-2025-04-14": "gpt-4.1-mini", "gpt-4.1-nano-2025-04-14": "gpt-4.1-nano",
         "gpt-4.5-preview": "gpt-4.5-preview", "gpt-4o-2024-05-13": "gpt-4o-2024-05-13",
         "gpt-4o-mini-2024-07-18": "gpt-4o-mini-2024-07-18",
         "claude-3-5-sonnet-20241022": "claude-3.5-sonnet-v2",
         "claude-3-7-sonnet-20250219": "claude-3.7-sonnet",
         "claude-3-opus-20240229": "claude-3-opus-20240229",
         "claude-haiku-4-5-20251001": "claude-4.5-haiku",
         "claude-opus-4-5-20251101": "claude-4.5-opus",
         "anthropicclaude-opus-4.1": "claude-4.1-opus",
         "anthropicclaude-sonnet-4.5": "claude-4.5-sonnet",
         "gemma-3-27b-it": "gemma-3-27b-it", "grok-4-0709": "grok-4-0709",
         "open-mixtral-8x22b": "Mixtral-8x22B-Instruct-v0.1",
         "open-mixtral-8x7b": "Mixtral-8x7B-Instruct-v0.1",
         "qwen2.5-72b-instruct": "qwen-2.5-72b-instruct",
         "meta-llamaLlama-3.3-70B-Instruct": "llama-3.3-70b",
         "meta-llamaMeta-Llama-3.1-70B-Instruct": "llama-3.1-70b",
         "meta-llamallama-4-maverick": "llama-4-maverick",
         "meta-llamallama-4-scout": "llama-4-scout"},
    PE: {"google/gemini-2.0-flash-001": "gemini-2.0-flash",
         "google/gemini-2.5-pro": "gemini-2.5-pro",
         "google/gemini-3-pro-preview-20251117": "gemini-3-pro-preview",
         "meta-llama/llama-3-8b-instruct": "Meta-Llama-3-8B-Instruct",
         "meta-llama/llama-3-70b-instruct": "Meta-Llama-3-70B-Instruct",
         "meta-llama/llama-3.1-70b-instruct": "llama-3.1-70b",
         "meta-llama/llama-3.3-70b-instruct": "llama-3.3-70b",
         "meta-llama/llama-4-maverick": "llama-4-maverick",
         "meta-llama/llama-4-scout": "llama-4-scout",
         "anthropic/claude-3-haiku": "claude-3-haiku",
         "anthropic/claude-3.5-haiku": "claude-3.5-haiku",
         "anthropic/claude-3.7-sonnet": "claude-3.7-sonnet",
         "anthropic/claude-opus-4": "claude-4-opus",
         "anthropic/claude-opus-4.1": "claude-4.1-opus",
         "anthropic/claude-opus-4.5": "claude-4.5-opus",
         "anthropic/claude-sonnet-4": "claude-4-sonnet",
         "anthropic/claude-sonnet-4.5": "claude-4.5-sonnet",
         "anthropic/claude-haiku-4.5": "claude-4.5-haiku"},
}
# Names shared by the two new datasets only (no earlier dataset has these weights).
SHARED_NEW = {"meta-llamaMeta-Llama-3.1-8B-Instruct": "meta-llama/llama-3.1-8b-instruct",
              "meta-llamaMeta-Llama-3.1-405B-Instruct": "meta-llama/llama-3.1-405b-instruct"}

# Doubtful cases kept apart: (dataset, name) -> the entry it must NOT share (another reasoning
# effort, another mode, a moving alias, an unknown version, a quantised build).
APART = {
    (LD, "gpt-5-2025-08-07"): "gpt-5", (LD, "gpt-5.2-2025-12-11"): "gpt-5.2",
    (LD, "gpt-5.2-pro-2025-12-11"): "gpt-5.2-pro", (LD, "o3-2025-04-16"): "o3",
    (LD, "o4-mini-2025-04-16"): "o4-mini", (LD, "openaigpt-oss-120b"): "gpt-oss-120b",
    (LD, "gemini-3-pro-preview"): "gemini-3-pro-preview",
    (LD, "gemini-3-flash-preview"): "gemini-3-flash-preview",
    (LD, "gpt-3.5-turbo"): "gpt-3.5-turbo",
    (LD, "gemini-2.5-pro-exp-03-25"): "gemini-2.5-pro-preview-03-25",
    (LD, "gemini-2.0-flash-exp"): "gemini-2.0-flash",
    (LD, "open-mistral-7b"): "Mistral-7B-Instruct-v0.2", (LD, "phi2.7b"): "phi-2",
    (LD, "meta-llamaMeta-Llama-3.1-8B-Instruct"): "Meta-Llama-3.1-8B-Instruct-Turbo",
    (LD, "meta-llamaMeta-Llama-3.1-405B-Instruct"): "Meta-Llama-3.1-405B-Instruct-Turbo",
    (LD, "Grok-3-beta-thinking-20250303"): "grok-3",
    (LD, "ChatGPT-5.1-Instant-20251113"): "gpt-5.1", (LD, "Gpt-5.1-Pro-20251120"): "gpt-5.1",
    (LD, "gpt-5-chat-latest-2025-08-19"): "gpt-5",
    (LD, "gpt-4o-mini-2024-11-05"): "gpt-4o-mini-2024-07-18",
    (LD, "chatgpt-4o-latest-2024-11-20"): "chatgpt-4o-latest",
    (LD, "chatgpt-4o-latest-2025-03-26"): "chatgpt-4o-latest",
    (LD, "chatgpt-4o-latest-2025-04-26"): "chatgpt-4o-latest",
    (LD, "Grok-4.30-20260420"): "grok-4.3", (LD, "gpt-5.6-sol-XHIGH"): "gpt-5.6-sol",
    (PE, "anthropic/claude-3.5-sonnet"): "claude-3.5-sonnet-v2",
    (PE, "google/gemini-2.5-flash"): "gemini-2.5-flash-preview",
}

# Entries that already had a public release date from an earlier dataset, where llm-dreams'
# date list gives the snapshot tag's date instead: the entry keeps its date.
KEPT_DATE = {"claude-3-opus-20240229": ("2024-03-04", "2024-02-29"),
             "claude-3-7-sonnet-20250219": ("2025-02-24", "2025-02-19"),
             "claude-haiku-4-5-20251001": ("2025-10-15", "2025-10-01"),
             "claude-opus-4-5-20251101": ("2025-11-24", "2025-11-01")}
# poem-eval entries whose config date is not entered (the note says why).
NO_POEM_DATE = {"anthropic/claude-3.5-sonnet", "google/gemini-2.5-flash",
                "google/gemini-2.5-pro"}


@pytest.fixture(scope="module")
def registry():
    return load_registry(CONTENT)


@pytest.fixture(scope="module")
def dreams(shared_data):
    """llm-dreams' model names, read from the answers' file names, with their file counts."""
    counts = Counter()
    for path in (shared_data / "llm_dreams" / "answers").iterdir():
        match = ANSWER.fullmatch(path.name)
        if match:
            counts[match["model"]] += 1
        else:
            assert not path.name.endswith(".txt"), path.name
    return counts


@pytest.fixture(scope="module")
def dream_dates(shared_data):
    return json.loads((shared_data / "llm_dreams" / "db" / "model_dates.json").read_text())


@pytest.fixture(scope="module")
def poems(shared_data):
    """poem-eval's model_id -> its release month, from scored_results.csv."""
    with open(shared_data / "poem_eval" / "scored_results.csv", newline="",
              encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    releases = {}
    for row in rows:
        assert releases.setdefault(row["model_id"], row["release"]) == row["release"]
    return releases


def names_of(dataset, dreams, poems):
    return sorted(dreams) if dataset == LD else sorted(poems)


def test_the_data_has_the_documented_models(dreams, poems, dream_dates):
    assert len(dreams) == 236 and set(dreams.values()) == {15 * 2}
    assert set(dream_dates) == set(dreams)
    assert len(poems) == 23


@pytest.mark.parametrize("dataset", [LD, PE])
def test_every_name_has_exactly_one_entry(registry, dreams, poems, dataset):
    names = names_of(dataset, dreams, poems)
    owners = Counter(name for model in registry.models
                     for name in model.aliases.get(dataset, ()))
    assert {name: owners[name] for name in names if owners[name] != 1} == {}
    assert all(registry.get(registry.model_id(dataset, name)) is not None for name in names)
    # No alias of these datasets is a typo or a name the data does not have.
    assert registry.unmatched({(dataset, name) for name in names}) == []


@pytest.mark.parametrize("dataset", [LD, PE])
def test_no_two_names_of_a_dataset_share_an_entry(registry, dreams, poems, dataset):
    ids = Counter(registry.model_id(dataset, name) for name in names_of(dataset, dreams, poems))
    assert [model for model, count in ids.items() if count > 1] == []


def test_the_rated_judges_are_entries(registry, dreams, shared_data):
    folders = sorted(p.name for p in (shared_data / "llm_dreams").glob("evaluations-*"))
    assert len(folders) == 9
    for judge, name in JUDGES.items():
        assert name in dreams, judge
        entry = registry.get(registry.model_id(LD, name))
        assert entry is not None, judge
        # The judge's own name finds the entry of the model it is.
        assert registry.resolve(judge) == entry.id, judge
    # The ninth judge, gemini-3.7-flash, is not a rated model.
    assert registry.get(registry.resolve("gemini-3.7-flash")) is None
    assert not any("3.7-flash" in name and "gemini" in name for name in dreams)


def test_released_dates_follow_llm_dreams_date_list(registry, dreams, dream_dates):
    wrong = {}
    for name in dreams:
        entry = registry.get(registry.model_id(LD, name))
        given = dream_dates[name]
        if name in KEPT_DATE:
            assert (entry.released, given) == KEPT_DATE[name], name
            assert set(entry.aliases) - {LD, PE}, name  # a date from an earlier dataset
        elif given and entry.released != given:
            wrong[name] = (entry.released, given)
        elif not given and set(entry.aliases) <= {LD}:
            assert entry.released is None, name  # no date given: none invented
    assert wrong == {}


def test_poem_eval_only_entries_take_its_release_month(registry, poems):
    for name, release in poems.items():
        entry = registry.get(registry.model_id(PE, name))
        if name in NO_POEM_DATE:
            assert entry.released is None and entry.note, name
        elif set(entry.aliases) == {PE}:
            assert entry.released == release, name
        else:  # shared: a date at least as precise as the config's month
            assert entry.released and len(entry.released) >= len(release), name


def test_merges_and_doubtful_cases(registry, dreams, poems):
    for dataset, expected in SHARED.items():
        assert set(expected) <= set(names_of(dataset, dreams, poems))
        for name, entry_id in expected.items():
            assert registry.model_id(dataset, name) == entry_id, name
            earlier = set(registry.get(entry_id).aliases) - {LD, PE}
            assert earlier, f"{name}: {entry_id} is not an earlier dataset's entry"
    for dream_name, poem_name in SHARED_NEW.items():
        entry = registry.get(registry.model_id(LD, dream_name))
        assert registry.model_id(PE, poem_name) == entry.id
        assert set(entry.aliases) == {LD, PE}
    # Every other new name has an entry of its own datasets only.
    shared = {(d, n) for d, names in SHARED.items() for n in names}
    shared |= {(LD, ld) for ld in SHARED_NEW} | {(PE, pe) for pe in SHARED_NEW.values()}
    for dataset in (LD, PE):
        for name in names_of(dataset, dreams, poems):
            if (dataset, name) not in shared:
                entry = registry.get(registry.model_id(dataset, name))
                assert set(entry.aliases) == {dataset}, (dataset, name)
    for (dataset, name), other in APART.items():
        assert registry.get(other) is not None, other
        own = registry.get(registry.model_id(dataset, name))
        assert own.id != other and own.note, (dataset, name)


def test_ids_of_entries_without_an_alpaca_eval_name_are_slugs(registry):
    for model in registry.models:
        if "alpaca_eval" not in model.aliases:
            assert re.fullmatch(r"[a-z0-9._-]+", model.id), model.id


def test_the_file_keeps_its_order_and_sections():
    """Sorted by organisation, then id (case-insensitive), unknown organisation last; each
    '# ---- Org' comment heads its organisation's entries."""
    import tomllib

    text = (CONTENT / "models.toml").read_text(encoding="utf-8")
    entries = tomllib.loads(text)["models"]
    keys = [(m.get("organisation") is None, (m.get("organisation") or "").casefold(),
             m["id"].casefold()) for m in entries]
    assert keys == sorted(keys)
    sections, current = [], None
    for line in text.splitlines():
        if line.startswith("# ---- "):
            current = line.removeprefix("# ---- ")
            sections.append(current)
        elif line.startswith("organisation = "):
            assert json.loads(line.removeprefix("organisation = ")) == current
    known = sorted({m["organisation"] for m in entries if "organisation" in m}, key=str.casefold)
    assert sections == [*known, "organisation unknown"]


def test_eqbench_chatgpt_4o_latest_runs_are_two_entries(registry):
    """Issue 23: two runs of a moving alias (published Elo 1444.38 and 1447.74), not known
    to be the same weights."""
    one = registry.get(registry.model_id("eqbench3", "chatgpt-4o-latest"))
    two = registry.get(registry.model_id("eqbench3", "openai/chatgpt-4o-latest"))
    assert one is not None and two is not None and one.id != two.id
    assert one.id == "chatgpt-4o-latest"  # the page published so far keeps its URL
    for entry in (one, two):
        assert "moving alias" in entry.note and entry.released is None
        assert set(entry.aliases) == {"eqbench3"}


def test_validate_accepts_the_registry_with_eqbench(tmp_path):
    from helpers import run_cli

    result = run_cli("validate", str(REPO / "annotations" / "eqbench3"), "--content",
                     str(CONTENT), cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("note:")] == []
