"""Behavioral Profiling's protocol: its baseline, for a new model.

From the base data at run time: the baseline's 50 prompts (the request ids of
`contributions/baseline.json`, their texts in `prompts/`) and the judges' instruction,
`judge/behavior.yaml`'s `judge_prompt`, with the prompt and the answer put where it
marks them.  The model answers each prompt once (one user message: a baseline prompt
file has no system prompt); each of the panel's three judges scores the answer on the
nine dimensions, 1-10, in the JSON the instruction asks for (`{"scores": {...}}`); the
published number is the three judges' mean, filed under the panel's name as the
importer files it, and only when all three scored the dimension.

What it cannot reproduce: the five pressure conditions (each sends a system prompt,
`payload/prompts/<condition>.txt`, that is not published) and the telemetry judge's
extraction; the models' and judges' sampling settings (not published: none is sent);
the judge models' exact versions behind the names (the names below are OpenRouter's
for the three: --judge-model maps them to your provider's).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ffsite._read import read_yaml
from ffsite.collect.protocol.parse import read_scores
from ffsite.collect.protocol.spec import (
    AnswerKey,
    Judge,
    Material,
    Message,
    Prompt,
    ScoredProtocol,
    ScoredTrait,
    Unit,
    Verdict,
)
from ffsite.datasets.behavioral_profiling import DATASET, importer, reader
from ffsite.datasets.record import BASELINE
from ffsite.errors import FfsiteError

VERSION = "behavioral-profiling-1"
RUBRIC_FILE = "judge/behavior.yaml"
PROMPT_SLOT = "{prompt_text_will_be_injected}"
RESPONSE_SLOT = "{model_response_will_be_injected}"
# The panel's judges on OpenRouter (the data names them; their API ids are ours).
JUDGE_MODELS = {"Claude-4.5-Sonnet": "anthropic/claude-sonnet-4.5",
                "Llama-4-Maverick": "meta-llama/llama-4-maverick",
                "DeepSeek-R1": "deepseek/deepseek-r1"}


def read_rubric(root: Path) -> str:
    """The judges' instruction, with its two slots checked."""
    path = root / RUBRIC_FILE
    document = read_yaml(path, hint="fetch it again")
    template = document.get("judge_prompt") if isinstance(document, dict) else None
    if not isinstance(template, str) or PROMPT_SLOT not in template or (
            RESPONSE_SLOT not in template):
        raise FfsiteError(f"{path}: 'judge_prompt' must be a text with {PROMPT_SLOT} and "
                          f"{RESPONSE_SLOT}; fetch the dataset again")
    return template


def baseline_prompts(root: Path) -> list[reader.PromptFile]:
    """The baseline's prompts, by request id: the jobs of contributions/baseline.json."""
    path = root / reader.CONTRIBUTIONS_DIR / f"{BASELINE}.json"
    files = reader.read_prompt_files(root)
    found = []
    for request_id in sorted({reader.request_id_of(job)
                              for job in reader.read_contributions(path)}):
        if request_id not in files:
            raise FfsiteError(f"{path}: request '{request_id}' has no prompt file under "
                              f"{root / reader.PROMPTS_DIR}; fetch the dataset again")
        found.append(files[request_id])
    return found


def judge_text(template: str, prompt: str, answer: str) -> str:
    return template.replace(PROMPT_SLOT, prompt).replace(RESPONSE_SLOT, answer)


def load(root: Path) -> Material:
    template = read_rubric(root)
    files = baseline_prompts(root)
    by_id = {entry.request_id: entry for entry in files}
    prompts = tuple(Prompt(entry.request_id, ({"role": "user", "content": entry.prompt},))
                    for entry in files)

    def units(model: str, answer_sets: int) -> list[Unit]:
        return [Unit(f"{entry.request_id}/{model}" + (f"/{k}" if k else ""),
                     entry.request_id, BASELINE,
                     {"suite": reader.suite_of(entry) or "", "scenario": entry.request_id,
                      **({"answer_set": str(k)} if answer_sets > 1 else {})},
                     ((entry.request_id, k),))
                for entry in files for k in range(answer_sets)]

    def messages(unit: Unit, texts: Mapping[AnswerKey, str]) -> list[Message]:
        (part,) = unit.parts
        return [{"role": "user", "content": judge_text(template, by_id[part[0]].prompt,
                                                       texts[part])}]

    return Material(prompts, units, messages, read,
                    source=f"{root / reader.PROMPTS_DIR} and {root / RUBRIC_FILE}")


def read(text: str) -> Verdict:
    # The published scores include 0s below the rubric's 1 (importer.SCALE): kept.
    return read_scores(text, list(importer.DIMENSIONS), scale=importer.SCALE,
                       nested="scores")


def describe(judge: str) -> str:
    if judge == importer.JUDGE:
        return importer.JUDGE_DESCRIPTION
    return (f"{judge}: the mean of the judges' 1-10 scores on Behavioral Profiling's "
            "rubric (its protocol, run by ffsite)")


def protocol() -> ScoredProtocol:
    return ScoredProtocol(
        name="behavioral-profiling", dataset=DATASET.id, version=VERSION,
        about=("the model answers the 50 baseline prompts; three judges score each "
               "answer 1-10 on nine dimensions with the dataset's rubric; the published "
               "number is their mean"),
        reproduces=("the baseline prompts, the judges' instruction (judge/behavior.yaml, "
                    "as published), the panel of three and its mean per dimension"),
        differs=("baseline only: the pressure conditions' system prompts are not "
                 "published; no sampling settings are known (none is sent); a max_tokens "
                 "bound on every call; the judges' API ids are OpenRouter's"),
        judges=tuple(Judge(name, JUDGE_MODELS[name]) for name in DATASET.judges),
        traits=tuple(ScoredTrait(key, importer.trait_id(key), wording)
                     for key, wording in importer.DIMENSIONS.items()),
        trait_set=importer.TRAIT_SET, scale=importer.SCALE, load=load,
        describe_judge=describe, panel=importer.JUDGE, unit="answer", reasks=0,
        max_tokens=4096, judge_max_tokens=2048, answer_tokens=450, verdict_tokens=250)
