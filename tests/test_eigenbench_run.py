"""`ffsite eigenbench run` end to end against a local OpenAI-compatible server: the
design, faults, the cache, the key, the budget, then `fit` and the site page.

The server plays a population whose true order is known: each model's answer carries
its quality; honest judges pick, per criterion, the answer of higher quality; one judge
always picks the answer shown first (the both-orders rule must neutralise it).  Commands
run in this process (helpers.run_here: the browser tests, whose Playwright holds the
thread's event loop, run after all others, tests/conftest.py), except the run killed
with SIGKILL.
"""

from __future__ import annotations

import itertools
import json
import re
import signal
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from annotate_helpers import KEY, api_env, make_base_data, run_subprocess
from chat_server import ChatServer, Reply, Request
from helpers import run_here
from site_fixture import REPO, write_content, write_tiny

from ffsite.collect.api import Api
from ffsite.collect.eigenbench.constitution import load_constitution, parse_constitution
from ffsite.collect.eigenbench.design import RunSettings, check_models, plan
from ffsite.commands.options import error_line
from ffsite.datasets.alpaca_eval.reader import prompt_set
from ffsite.errors import FfsiteError, ParameterError
from ffsite.format.read import read_annotations, vote_rows
from ffsite.metrics.eigenbench import TIE, eigenbench, judgments_from_annotations

QUALITY = {"m-best": 4, "m-good": 3, "m-fair": 2, "m-first-shown": 1, "m-worst": 0}
MODELS = list(QUALITY)
FIRST_SHOWN = "m-first-shown"
CONSTITUTION = "# test constitution\nPrefer the kinder reply.\nPrefer the clearer reply.\n"
_QUALITY_TAG = re.compile(r"\[quality (\d)\]")


def population(request: Request) -> Reply:
    """Answers, reflections and verdicts of the scripted population."""
    text = request.user_text
    if not request.is_judge:
        return Reply(content=f"{request.model} [quality {QUALITY[request.model]}] says hi.")
    if "<response_a>" not in text:
        return Reply(content=f"{request.model} reflects: fits the criteria somewhat.")
    first, second = (int(q) for q in _QUALITY_TAG.findall(
        text.split("<response_a>", 1)[1])[:2])
    n_criteria = len(re.findall(r"^\d+\. ", text.split("A user sent", 1)[0], re.M))
    side = "A" if request.model == FIRST_SHOWN or first > second else "B"
    return Reply(content=json.dumps({str(i): side for i in range(1, n_criteria + 1)}))


def faulty(handler):
    """The first request of some calls fails: 429 with Retry-After, 500, a dropped
    connection, a body that is not JSON (all retried); unparsable verdicts stay."""
    seen: Counter = Counter()

    def reply(request: Request) -> Reply:
        seen[request.digest] += 1
        fault = int(request.digest[:2], 16) % 12
        if seen[request.digest] == 1:
            if fault == 0:
                return Reply(status=429, headers={"Retry-After": "0"})
            if fault == 1:
                return Reply(status=500)
            if fault == 2:
                return Reply(drop=True)
            if fault == 3:
                return Reply(raw_body=b"{not json")
        if fault == 4 and "<response_a>" in request.user_text:
            return Reply(content="I cannot decide.")
        return handler(request)

    return reply


def args(base: Path, tmp: Path, *extra: str, out: str = "votes.parquet",
         cache: str = "cache") -> list[str]:
    command = ["eigenbench", "run", "--constitution", str(tmp / "kind.txt"),
               "--base-data", str(base), "--scenarios", "6", "--pairs-per-judge", "2",
               "--cache-dir", str(tmp / cache), "--out", str(tmp / out), "--backoff", "0",
               "--concurrency", "4"]
    for model in MODELS:
        command += ["--model", model]
    return command + list(extra)


@pytest.fixture
def inputs(tmp_path):
    (tmp_path / "kind.txt").write_text(CONSTITUTION)
    return make_base_data(tmp_path / "base", 8), tmp_path


def run(command: list[str], url: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `ffsite COMMAND` against the server at `url`."""
    done = run_here(*command, env=api_env(url))
    return done.returncode, done.stdout, done.stderr


# ------------------------------------------------------------------------ the design

def design_settings(tmp_path, **changes) -> RunSettings:
    return RunSettings(**{**dict(models=tuple(MODELS), constitution=parse_constitution(
        "c", CONSTITUTION, "test"), out=tmp_path / "o.parquet",
        responses_out=tmp_path / "r.json", api=Api(tmp_path), pairs_per_judge=2), **changes})


def test_the_judge_is_drawn_independently_of_the_pair(tmp_path):
    prompts = prompt_set(make_base_data(tmp_path, 30) / "alpaca_eval")
    settings = design_settings(tmp_path)
    design = plan(settings, prompts)
    assert len(design.judge) == 5 * 30 * 2
    pairs = Counter()
    for judge, a, b in zip(design.judge, design.side_a, design.side_b, strict=True):
        assert a != b
        pairs[judge, min(a, b), max(a, b)] += 1
    # 60 judgments per judge over all 10 pairs of the 5 models: 6 each, exactly, its own
    # 4 pairs among them (self-judgments: 24 of its 60, 2 in 5).
    assert len(pairs) == 5 * 10 and set(pairs.values()) == {6}
    own = [(j == a) | (j == b) for j, a, b in zip(design.judge, design.side_a,
                                                   design.side_b, strict=True)]
    assert sum(own) == 5 * 24
    # One comparison per scenario and pair; a judge never gets one pair twice per scenario.
    table = design.table
    assert not table[["prompt_id", "model_a", "model_b"]].duplicated().any()
    per_scenario = Counter(zip(design.judge, design.scenario, design.comparison, strict=True))
    assert set(per_scenario.values()) == {1}
    # The same settings give the same design; another seed another walk.
    again = plan(settings, prompts)
    assert (again.comparison == design.comparison).all()
    other = plan(design_settings(tmp_path, seed=1), prompts)
    assert not np.array_equal(other.side_a, design.side_a)


def test_without_self_judgments_every_judge_sees_every_pair_of_others(tmp_path):
    prompts = prompt_set(make_base_data(tmp_path, 30) / "alpaca_eval")
    design = plan(design_settings(tmp_path, self_judgments=False), prompts)
    pairs = Counter()
    for judge, a, b in zip(design.judge, design.side_a, design.side_b, strict=True):
        assert judge not in (a, b) and a != b
        pairs[judge, min(a, b), max(a, b)] += 1
    # 60 judgments per judge over the 6 pairs of the 4 others: 10 each, exactly.
    assert len(pairs) == 5 * 6 and set(pairs.values()) == {10}
    with pytest.raises(ParameterError, match="only 6 pairs of others"):
        plan(design_settings(tmp_path, self_judgments=False, pairs_per_judge=7), prompts)
    assert len(plan(design_settings(tmp_path, pairs_per_judge=7), prompts).judge) == 5 * 30 * 7


@pytest.mark.parametrize(("models", "message"), [
    (["a", "b"], "at least 3 models"), (["a", "b", "a"], "--model a is given twice"),
    (["a", "b", "c\x1b[31m"], "control character U[+]001B"), (["a", " ", "c"], "empty")])
def test_bad_populations_are_refused(models, message):
    # The library names its parameter (models); the CLI words it as the flag (--model).
    with pytest.raises(ParameterError) as caught:
        check_models(models)
    assert caught.value.param == "models"
    assert re.search(message, error_line(caught.value))


def test_shipped_constitutions_load():
    for name in ("ff-personality", "hhh"):
        constitution = load_constitution(name)
        assert constitution.name == name and len(constitution.criteria) >= 4
        assert all(c.trait_set == name for c in constitution.criteria)


@pytest.mark.parametrize(("text", "message"), [
    ("# only a comment\n", "no criteria"),
    ("Prefer A.\nPrefer A.\n", "line 2 repeats line 1"),
    ("x" * 501 + "\n", "501 characters"),
    ("Prefer kindness.\nPrefer\x00 nothing.\n", "line 2: text holds the control character")])
def test_bad_constitutions_are_refused(text, message):
    with pytest.raises(FfsiteError, match=message):
        parse_constitution("c", text, "c.txt")


# ----------------------------------------------------------------------- end to end

def test_run_with_faults_then_fit_and_page(inputs):
    base, tmp = inputs
    with ChatServer(faulty(population)) as server:
        code, stdout, stderr = run(args(base, tmp, "--log", str(tmp / "run.log")), server.url)
        assert code == 0, stderr
        statuses = Counter(r.body.get("model") for r in server.requests)
    assert set(statuses) == set(MODELS)
    rows = vote_rows(tmp / "votes.parquet").to_pandas()
    assert set(rows["judge"]) == set(MODELS) and set(rows["trait_set"]) == {"kind"}
    assert set(rows["seed"]) == {0, 1} and set(rows["vote"]) <= {"A", "B", "tie", "invalid"}
    # The judge is drawn independently of the pair: some judgments are self-judgments.
    own = (rows["judge"] == rows["model_a"]) | (rows["judge"] == rows["model_b"])
    assert 0 < own.sum() < len(rows)
    assert rows.loc[rows["vote"] == "invalid", "note"].str.contains("unparsable").all()
    summary = json.loads(pq.read_schema(tmp / "votes.parquet").metadata[b"ffsite"])["extra"]
    # 5 judges x 6 scenarios x 2 pairs, both orders, 2 criteria.
    assert summary["judgments"] == 60 and summary["votes"] == 60 * 2 * 2
    assert summary["self_judgments"] == own.sum() / (2 * 2)  # two orders, two criteria
    assert summary["retries"] > 0 and summary["complete"] is True
    invalid = summary["invalid_votes"]
    assert 0 < invalid <= 0.2 * summary["votes"]
    assert f"invalid {invalid}" in stdout and "eigenbench fit" in stdout

    annotations = read_annotations([str(tmp / "votes.parquet")])
    judgments = judgments_from_annotations(annotations, "kind")
    assert judgments.models == tuple(sorted(MODELS))
    # The first-shown judge picked A whatever it saw: its picks flip with the order, so
    # the both-orders rule made ties of all of them except where the other order's
    # verdict was unreadable (a lone pick stays).
    mine = rows[(rows["judge"] == FIRST_SHOWN) & (rows["vote"] != "invalid")]
    lone = mine.groupby(["comparison_id", "trait_id"])["seed"].transform("size") == 1
    outcomes = judgments.outcome[judgments.judge == judgments.models.index(FIRST_SHOWN)]
    assert len(outcomes) == len(mine) and (outcomes != TIE).sum() == lone.sum()
    assert (outcomes == TIE).mean() > 0.8
    result = eigenbench(judgments, dims=1, n_bootstrap=0, seed=0)
    # The honest judges' order at the top (the lone first-shown picks may blur the bottom).
    assert list(result.ratings["model"])[:3] == ["m-best", "m-good", "m-fair"]
    total = (10 ** ((result.ratings["elo"] - 1500) / 400)).sum()
    assert total == pytest.approx(len(MODELS))

    # The answers are base data beside the votes, in AlpacaEval's own record layout.
    answers = json.loads((tmp / "votes.responses.json").read_text())
    assert {a["generator"] for a in answers} == set(MODELS)
    assert all(f"[quality {QUALITY[a['generator']]}]" in a["output"] for a in answers)

    # Then the site (the tiny test site plus these votes): an EigenBench page.
    site_annotations = tmp / "annotations"
    write_tiny(site_annotations)
    (site_annotations / "votes.parquet").write_bytes((tmp / "votes.parquet").read_bytes())
    content = write_content(tmp / "content", eigenbench_resamples=20)  # (no interval read)
    built = run_here("build", "--annotations", str(site_annotations), "--content",
                     str(content), "--templates", str(REPO / "templates"), "--out",
                     str(tmp / "site"), "--quiet")
    assert built.returncode == 0, built.stderr
    page = (tmp / "site" / "eigenbench" / "kind.html").read_text()
    assert all(model in page for model in MODELS)
    ratings = json.loads((tmp / "site" / "data" / "eigenbench" / "kind" /
                          "ratings.json").read_text())
    assert ratings[0]["model"] == "m-best"

    # The key went nowhere: not the votes, the answers, the cache, the log or the output.
    written = [tmp / "votes.parquet", tmp / "votes.responses.json", tmp / "run.log",
               *(tmp / "cache").rglob("*.json")]
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in stdout + stderr


def test_rerun_makes_no_calls_and_writes_the_same_bytes(inputs):
    base, tmp = inputs
    with ChatServer(population) as server:
        assert run(args(base, tmp), server.url)[0] == 0
        first = (tmp / "votes.parquet").read_bytes()
        before = len(server.requests)
        code, stdout, _ = run(args(base, tmp), server.url)
        assert code == 0 and len(server.requests) == before
    assert (tmp / "votes.parquet").read_bytes() == first
    assert "0 new" in stdout
    # Without faults the fit recovers the population's whole order.
    fitted = json.loads(run_here("eigenbench", "fit", str(tmp / "votes.parquet"), "--dims",
                                 "1", "--bootstrap", "20", "--format", "json").stdout)
    assert [r["model"] for r in fitted["ratings"]] == sorted(MODELS, key=QUALITY.get,
                                                               reverse=True)
    assert fitted["notes"]["turned_into_ties"] == 2 * 2 * 12  # all the first-shown's picks


def test_kill_and_resume_pays_no_answered_call_twice(inputs):
    base, tmp = inputs
    with ChatServer(population, latency=0.05) as server:
        env = api_env(server.url)
        killed = run_subprocess(args(base, tmp), env)
        deadline = time.monotonic() + 60
        while len(server.answered) < 40 and time.monotonic() < deadline:
            time.sleep(0.01)
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        server.settle()  # (requests the killed run sent are all counted)
        cached = len(list((tmp / "cache").rglob("*.json")))
        asked_before = len(server.requests)
        assert cached >= 30 and not (tmp / "votes.parquet").exists()
        code, stdout, stderr = run(args(base, tmp), server.url)
        assert code == 0, stderr
        resumed = len(server.requests) - asked_before
        repeats = Counter(r.digest for r in server.answered).values()
        code, _, _ = run(args(base, tmp, out="fresh.parquet", cache="fresh-cache"),
                         server.url)
        assert code == 0
    summary = json.loads(pq.read_schema(tmp / "votes.parquet").metadata[b"ffsite"])["extra"]
    # The resumed run asked exactly for the calls not cached at the kill (those in flight
    # then included) and for none that was: no answered call was paid twice.
    assert resumed == summary["calls"] - cached
    assert sum(n - 1 for n in repeats) <= 4  # --concurrency: a call keeps its lane until stored
    assert len(list((tmp / "cache").rglob("*.json"))) == summary["calls"]
    assert f"({resumed} new, {cached} from cache" in stdout
    assert (tmp / "votes.parquet").read_bytes() == (tmp / "fresh.parquet").read_bytes()


def test_dry_run_counts_the_calls_and_sends_nothing(inputs):
    base, tmp = inputs
    with ChatServer(population) as server:
        code, stdout, stderr = run(args(base, tmp, "--dry-run"), server.url)
        assert code == 0, stderr
        assert not server.requests
    # 5 judges x 6 scenarios x 2 pairs = 60 judgments, each asked in 2 orders: 120
    # comparisons, 24 per judge; each judge reflects on the answers it compares.
    lines = stdout.splitlines()
    compare = [line for line in lines if line.startswith("comparisons:")]
    assert len(compare) == 5 and all(line.startswith("comparisons: 24 calls")
                                     for line in compare)
    answers = sum(int(line.split()[1]) for line in lines if line.startswith("answers:"))
    reflections = sum(int(line.split()[1]) for line in lines
                      if line.startswith("reflections:"))
    assert answers <= 5 * 6 and reflections <= 5 * 6 * 4
    assert "cost unknown" in stdout and "nothing was sent" in stdout


def five_tokens(request: Request) -> Reply:
    """The population, every answer billed as 5 completion tokens and no prompt tokens."""
    reply = population(request)
    reply.usage = {"prompt_tokens": 0, "completion_tokens": 5}
    return reply


def test_budget_stops_the_run_in_the_comparisons_and_says_so(inputs):
    base, tmp = inputs
    (tmp / "prices.json").write_text(json.dumps(
        {model: {"input": 0.0, "output": 1000.0} for model in MODELS}))
    # Each call costs $0.005 (5 tokens at $1000 per million); at most 30 answers and 120
    # reflections ($0.75) come first, then 120 comparisons ($0.60): $1 runs out among the
    # comparisons, after at least 90 reflections and 24 answers ($0.57) are paid.
    limits = ["--prices", str(tmp / "prices.json"), "--max-cost", "1", "--max-tokens",
              "10", "--reflection-max-tokens", "10", "--judge-max-tokens", "10"]
    with ChatServer(five_tokens) as server:
        code, stdout, stderr = run(args(base, tmp, *limits), server.url)
        compared = sum("<response_a>" in r.user_text for r in server.requests)
    assert code == 0, stderr
    assert "stopped at the budget: --max-cost 1.0" in stdout
    summary = json.loads(pq.read_schema(tmp / "votes.parquet").metadata[b"ffsite"])["extra"]
    assert summary["complete"] is False and summary["cost_usd"] <= 1.0
    assert 0 < compared < 120 and summary["comparison_calls"] == compared
    assert summary["votes"] == compared * 2  # two criteria per comparison call


@pytest.mark.parametrize(("extra", "message"), [
    (["--pairs-per-judge", "11"], "--pairs-per-judge 11: with 5 models a judge has only 10 pairs"),
    (["--pairs-per-judge", "7", "--no-self-judgments"], "only 6 pairs of others"),
    (["--constitution", "no-such-file.txt"], "not ff-personality or hhh"),
    (["--max-cost", "1"], "--max-cost needs a price for 'm-best'")])
def test_bad_options_end_in_one_line(inputs, extra, message):
    base, tmp = inputs
    with ChatServer(population) as server:
        code, stdout, stderr = run(args(base, tmp, *extra), server.url)
        assert not server.requests
    assert code != 0 and message in stderr and "Traceback" not in stderr
    assert not (tmp / "votes.parquet").exists()


def test_annotated_pairs_with_judge_models_are_eigenbench_input(tmp_path):
    """Judgments made elsewhere: an AnnotatedPairs file whose principle annotators carry a
    `model` (the judge, one of the evaluees) goes through `ffsite import annotated-pairs`
    into `ffsite eigenbench fit` unchanged.  Here every judge prefers, on every scenario,
    the model earlier in ORDER, so the fit must rate them in that order."""
    order = ["alpha", "beta", "gamma", "delta"]
    annotators = {"pref": {"name": "preferred_text", "type": "unknown"}}
    for judge in order:
        annotators[f"kind-{judge}"] = {"type": "principle", "model": judge,
                                       "description": "Prefer the kinder reply"}
    comparisons = []
    for scenario in range(6):
        for first, second in itertools.combinations(order, 2):
            a, b = (first, second) if scenario % 2 else (second, first)  # both sides
            votes = {f"kind-{judge}": {"pref": "a" if a == first else "b"}
                     for judge in order if judge not in (a, b)}
            comparisons.append({
                "id": f"s{scenario}-{a}-{b}", "prompt": f"scenario {scenario}",
                "response_a": {"text": f"{a} on {scenario}", "model": a},
                "response_b": {"text": f"{b} on {scenario}", "model": b},
                "annotations": {"pref": {"pref": "a"}, **votes}})
    document = {"metadata": {"version": "2.0", "default_annotator": "pref"},
                "annotators": annotators, "comparisons": comparisons}
    (tmp_path / "pairs.json").write_text(json.dumps(document))
    imported = run_here("import", "annotated-pairs", str(tmp_path / "pairs.json"), "--out",
                        str(tmp_path / "pairs.parquet"))
    assert imported.returncode == 0, imported.stderr
    done = run_here("eigenbench", "fit", str(tmp_path / "pairs.parquet"), "--dims", "1",
                    "--bootstrap", "0", "--format", "json")
    assert done.returncode == 0, done.stderr
    fitted = json.loads(done.stdout)
    assert [r["model"] for r in fitted["ratings"]] == order
    assert fitted["judgments"] == 6 * 6 * 2  # 6 scenarios x 6 pairs x 2 outside judges


# ------------------------------------------------------------- a scenario set of one's own

def test_scenarios_from_a_file_need_no_base_data(tmp_path):
    (tmp_path / "kind.txt").write_text(CONSTITUTION)
    (tmp_path / "dilemmas.txt").write_text(
        "# my scenarios\nShould I tell my friend the truth?\n\nIs it fine to skip a "
        "wedding?\nShould I tell my friend the truth?\nHow do I say no to my boss?\n")
    command = ["eigenbench", "run", "--constitution", str(tmp_path / "kind.txt"),
               "--prompts", str(tmp_path / "dilemmas.txt"), "--cache-dir",
               str(tmp_path / "cache"), "--out", str(tmp_path / "votes.parquet"),
               "--backoff", "0", *[part for m in MODELS for part in ("--model", m)]]
    with ChatServer(population) as server:
        code, stdout, stderr = run(command, server.url)
        assert code == 0, stderr
        generations = [r for r in server.requests if not r.is_judge]
        asked = {r.user_text for r in generations}
    # Three different prompts (the repeat counts once); a model answers the ones it is
    # compared on (with one pair per judge and scenario, not always all five models).
    assert asked == {"Should I tell my friend the truth?", "Is it fine to skip a wedding?",
                     "How do I say no to my boss?"}
    rows = vote_rows(tmp_path / "votes.parquet").to_pandas()
    assert rows["prompt_id"].str.fullmatch(r"sc-[0-9a-f]{12}").all()
    assert rows["prompt_id"].nunique() == 3 and set(rows["judge"]) == set(MODELS)
    summary = json.loads(pq.read_schema(tmp_path / "votes.parquet").metadata[b"ffsite"])
    assert summary["extra"]["scenario_set"] == "dilemmas"
    answers = json.loads((tmp_path / "votes.responses.json").read_text())
    assert len(answers) == len(generations) <= 15
    assert {a["instruction"] for a in answers} == asked
    assert {a["prompt_id"] for a in answers} == set(rows["prompt_id"])


@pytest.mark.parametrize(("name", "text", "message"), [
    ("s.json", '{"a": 1}', "expected a list of prompts"),
    ("s.jsonl", '{"prompt": "fine"}\n{"text": "no"}\n', "scenario 2: not a string"),
    ("s.txt", "fine\nnot\x1bfine\n", "scenario 2: text holds the control character"),
    ("s.txt", "# nothing\n", "no scenarios"),
    ("s.json", "[1,", "not valid JSON")])
def test_bad_scenario_files_end_in_one_line(tmp_path, name, text, message):
    (tmp_path / name).write_text(text)
    done = run_here("eigenbench", "run", "--constitution", "hhh", "--prompts",
                    str(tmp_path / name), "--dry-run",
                    *[part for m in MODELS for part in ("--model", m)])
    stderr = done.stderr
    assert done.returncode == 1 and message in stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
