"""Speed of the rule-based judge: communication traits + rule features + pair votes.

    python benchmarks/bench_judges.py                      # ../shared/data/alpaca_eval
    python benchmarks/bench_judges.py PATH --limit 5000
    python benchmarks/bench_judges.py --check-shortcuts    # also: shortcuts == full parse

Loads every AlpacaEval response (67 models x 805 instructions), times
`response_features` over all of them and `judge_pairs` over every (model, reference)
pair on the same instruction, in this one process (one core).  It reports CPU time
(time.process_time, what the target is about: other work on the machine does not count)
and wall time.  The target is 2,000 responses per second.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

from ffsite.datasets.alpaca_eval.reader import REFERENCE_MODEL, load_outputs
from ffsite.judges.body import parse_body
from ffsite.judges.rules import judge_pairs, response_features

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "alpaca_eval"


def timed(function, *args):
    cpu, wall = time.process_time(), time.perf_counter()
    result = function(*args)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default=str(DEFAULT),
                        help="the alpaca_eval folder (with model_outputs/)")
    parser.add_argument("--limit", type=int, help="only the first N responses")
    parser.add_argument("--check-shortcuts", action="store_true",
                        help="check that the parse shortcuts agree with the full parse")
    options = parser.parse_args()

    outputs = load_outputs(options.path)
    if options.limit:
        outputs = outputs.iloc[:options.limit]
    texts = outputs["output"].tolist()
    print(f"{len(texts):,} responses, {sum(map(len, texts)):,} characters "
          f"({platform.python_implementation()} {platform.python_version()}, "
          f"{platform.machine()})")

    features, cpu, wall = timed(response_features, texts)
    print(f"response_features: {cpu:.1f} s CPU ({len(texts) / cpu:,.0f} responses/s), "
          f"{wall:.1f} s wall ({len(texts) / wall:,.0f} responses/s)")

    features.index = outputs["response_id"]
    reference = outputs[outputs["model"] == REFERENCE_MODEL].set_index("prompt_id")
    others = outputs[outputs["model"] != REFERENCE_MODEL]
    others = others[others["prompt_id"].isin(reference.index)]
    side_a = features.loc[others["response_id"]]
    side_b = features.loc[reference.loc[others["prompt_id"], "response_id"]]
    votes, cpu_pairs, wall_pairs = timed(judge_pairs, side_a, side_b)
    print(f"judge_pairs: {len(votes):,} pairs x {votes.shape[1]} traits in {cpu_pairs:.2f} s "
          f"CPU ({len(votes) / cpu_pairs:,.0f} pairs/s)")
    total = cpu + cpu_pairs
    print(f"whole pipeline: {len(texts) / total:,.0f} responses/s on one core "
          f"(target 2,000)")

    if options.check_shortcuts:
        differ = sum(parse_body(text) != parse_body(text, full_parse=True) for text in texts)
        print(f"shortcut check: {differ} of {len(texts):,} responses differ from the full parse")


if __name__ == "__main__":
    main()
