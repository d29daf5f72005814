"""Speed of the default-annotation pipeline on the real data, one core.

    python benchmarks/bench_default.py [--base-data ../shared/data]

Times, each step on its own: the AlpacaEval import (load 67 x 805 outputs and the judge's
preferences, build and write the votes file), the HH-RLHF import, the rule features +
communication traits of every AlpacaEval response (one `response_features` pass), the
rules judge on every comparison with the reference, and writing the rules and
communication files.  Prints wall and CPU seconds and items per second by each (on a
busy machine the CPU figures are the fairer ones).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from ffsite.datasets.alpaca_eval import reader as alpaca_eval
from ffsite.datasets.alpaca_eval.importer import import_alpaca_eval
from ffsite.datasets.hh_rlhf.importer import import_hh_rlhf
from ffsite.format.write import write_votes
from ffsite.judges import rules
from ffsite.judges.apply import communication_rows, measure, rule_votes


def timed(label: str, count: int, unit: str, work):
    """Run `work`; print wall and CPU seconds (CPU time is what a busy machine distorts
    least) and the throughput by each."""
    start, start_cpu = time.perf_counter(), time.process_time()
    result = work()
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    print(f"{label:46s} wall {wall:6.2f} s {count / wall:8.0f}/s   cpu {cpu:6.2f} s "
          f"{count / cpu:8.0f}/s   ({count} {unit})")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-data", default=os.environ.get("FFSITE_BASE_DATA",
                                                              "../shared/data"))
    base = Path(parser.parse_args().base_data)
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    with tempfile.TemporaryDirectory(prefix="bench-default-") as folder:
        run(base, Path(folder))


def run(base: Path, out: Path) -> None:

    outputs = alpaca_eval.load_outputs(base / "alpaca_eval")
    n_responses = len(outputs)

    def import_ae():
        result = import_alpaca_eval(base / "alpaca_eval")
        write_votes(result.table, out / "ae.parquet", annotators=result.annotators)
        return result

    imported = timed("import alpaca-eval (load, votes, write)", n_responses, "responses",
                     import_ae)
    pairs = len(imported.table)

    def import_hh():
        result = import_hh_rlhf(base / "hh_rlhf" / "harmless-base-test.jsonl.gz")
        write_votes(result.table, out / "hh.parquet", annotators=result.annotators)
        return result

    hh = timed("import hh-rlhf (load, votes, write)", 2 * 2312, "responses", import_hh)
    del hh
    texts = dict(zip(outputs["response_id"], outputs["output"], strict=True))
    features = timed("rule features + communication traits", n_responses, "responses",
                     lambda: measure(outputs["response_id"], texts))
    comparisons = imported.table.drop_duplicates("comparison_id")
    table = timed("rules judge on every comparison (votes table)", pairs, "comparisons",
                  lambda: rule_votes(comparisons, features))
    timed("write rules file", table.num_rows, "votes",
          lambda: write_votes(table, out / "rules.parquet", extra={"judge": rules.RULES_VERSION}))
    responses = outputs.assign(dataset="alpaca_eval")[["dataset", "response_id", "prompt_id",
                                                       "model"]]
    timed("communication rows", n_responses, "responses",
          lambda: communication_rows(responses, features))


if __name__ == "__main__":
    main()
