"""A tiny base-data folder (AlpacaEval and HH-RLHF layouts) written at test time.

Texts are made up here, so tests can check hand-computed outcomes without touching
../shared/data.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

REFERENCE = "gpt4_1106_preview"  # AlpacaEval's reference, the default
INSTRUCTIONS = {  # instruction -> AlpacaEval source subset
    "Name a colour.": "koala",
    "Explain rain.": "oasst",
    "List three fruits.": "selfinstruct",
    "Say hello.": "vicuna",
}
OUTPUTS = {
    REFERENCE: {
        "Name a colour.": "Blue.",
        "Explain rain.": "Water vapour condenses into droplets that fall.",
        "List three fruits.": "1. Apple\n2. Pear\n3. Plum",
        "Say hello.": "Hello!",
    },
    "wordy": {
        "Name a colour.": "A lovely colour that many people enjoy is **blue**, like the sky on "
                          "a clear summer day. Would you like more colours?",
        "Explain rain.": "Rain forms when water vapour in the air cools and condenses into "
                         "tiny droplets; these merge until they are heavy enough to fall as "
                         "rain. See https://example.org/rain for more. 😊",
        "List three fruits.": "Here are three fruits:\n\n1. **Apple**\n2. **Pear**\n3. **Plum**\n\n"
                              "Each is tasty and healthy. Do you want recipes?",
    },  # no answer to "Say hello.": that comparison must not exist
    "terse": {
        "Name a colour.": "Red",
        "Explain rain.": "Condensation.",
        "List three fruits.": "Apple, pear, plum",
        "Say hello.": "Hi",
    },
}
# The judge's preference for (model, instruction); the reference is output_1.
JUDGE = "weighted_alpaca_eval_gpt4_turbo"
PREFERENCES = {
    ("wordy", "Name a colour."): 1.9,  # model preferred
    ("wordy", "Explain rain."): 1.5,  # exactly a tie
    ("wordy", "List three fruits."): 1.2,  # reference preferred
    ("terse", "Name a colour."): 1.49999,  # reference, just below the tie
    (REFERENCE, "Name a colour."): 1.5,  # the reference against itself: not a comparison
}
HH_LINES = [
    ("\n\nHuman: How do I pick a lock?\n\nAssistant: I can't help with that.",
     "\n\nHuman: How do I pick a lock?\n\nAssistant: Sure! First get a tension wrench..."),
    ("\n\nHuman: Hi\n\nAssistant: Hello\n\nHuman: Tell me a joke\n\nAssistant: Why did the "
     "chicken cross the road? To get to the other side.",
     "\n\nHuman: Hi\n\nAssistant: Hello\n\nHuman: Tell me a joke\n\nAssistant: No."),
    ("\n\nHuman: What is 2+2?\n\nAssistant: 4",
     "\n\nHuman: What is 2+2?\n\nAssistant: **5**, obviously! 😀"),
]


def write_alpaca_eval(base: Path) -> Path:
    """<base>/alpaca_eval with model_outputs/ and judge_annotations/; return that folder."""
    root = base / "alpaca_eval"
    (root / "model_outputs").mkdir(parents=True)
    (root / "judge_annotations").mkdir()
    for model, answers in OUTPUTS.items():
        records = [{"dataset": INSTRUCTIONS[i], "instruction": i, "output": text,
                    "generator": model} for i, text in answers.items()]
        (root / "model_outputs" / f"{model}.json").write_text(json.dumps(records, indent=2))
    judged: dict[str, list] = {}
    for (model, instruction), preference in PREFERENCES.items():
        judged.setdefault(model, []).append({
            "instruction": instruction, "dataset": INSTRUCTIONS[instruction],
            "generator_1": REFERENCE, "generator_2": model, "preference": preference,
            "annotator": JUDGE})
    for model, records in judged.items():
        (root / "judge_annotations" / f"{model}.json").write_text(json.dumps(records))
    return root


def write_hh_rlhf(base: Path) -> Path:
    """<base>/hh_rlhf/harmless-base-test.jsonl.gz; return the file."""
    path = base / "hh_rlhf" / "harmless-base-test.jsonl.gz"
    path.parent.mkdir(parents=True)
    lines = "".join(json.dumps({"chosen": c, "rejected": r}) + "\n" for c, r in HH_LINES)
    path.write_bytes(gzip.compress(lines.encode("utf-8"), mtime=0))
    return path
