"""`ffsite lmlpa run` against a real local chat server (tests/chat_server.py): a model
answers LMLPA's items, a rater scores the answers, faults included; then `ffsite big-five`
on the file and `ffsite build` with it.

The server's rater reads its prompt as a rater would: it finds the item by the question,
decides the point of the trait's scale the script gives that item and run, and answers
the number its prompt lists beside that point's label.  Expected numbers are worked out
here from the script, not read from ffsite.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from annotate_helpers import KEY, api_env, file_summary, run_cli, run_subprocess
from chat_server import ChatServer, Reply, Request
from helpers import run_main
from site_fixture import REPO, write_content, write_tiny

from ffsite import bfi
from ffsite.collect.api import call_key
from ffsite.collect.lmlpa.prompt import ANSWER_VERSION, RATER_VERSION, options, parse_rating
from ffsite.format import read_scores

MODEL = "test-model"
RATER = "test-rater"
ITEMS = {i.text: i for i in bfi.instrument().items}
USED = [i for i in bfi.instrument().items if not i.dropped]
WORDS = ("never", "rarely", "sometimes", "often", "always")
# The BFI-44 key, typed here from John & Srivastava (1999), not read from ffsite.
REVERSE_KEYED = {6, 21, 31, 2, 12, 27, 37, 8, 18, 23, 43, 9, 24, 34, 35, 41}
_OPTION = re.compile(r"^- (\d)\. (.+)$", re.MULTILINE)
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.DOTALL)


def scripted_point(item: bfi.Item, seed: int) -> int:
    """The trait point (5 = the trait's first label) the rater gives an item in a run."""
    return 1 + (item.number * 7 + seed * 3) % 5


# ------------------------------------------------------------------ the server's side

def kind(request: Request) -> str:
    return "rate" if request.is_judge else "answer"


def item_of(request: Request) -> bfi.Item:
    if kind(request) == "answer":
        return ITEMS[request.user_text.split("Question: ", 1)[1]]
    return ITEMS[_QUESTION.search(request.user_text).group(1)]


def listed_reversed(request: Request) -> bool:
    """Whether the rater's options start from the trait's last label."""
    first_label = _OPTION.findall(request.user_text)[0][1]
    return first_label == bfi.instrument().labels[item_of(request).trait][-1]


def number_for(request: Request, point: int) -> str:
    """The number the prompt lists beside the label of `point`."""
    listed = {label: int(n) for n, label in _OPTION.findall(request.user_text)}
    item = item_of(request)
    return str(listed[bfi.instrument().labels[item.trait][bfi.SCALE[1] - point]])


class Script:
    """Answers items and rates answers; `faults[(kind, item id, seed, reversed)]` lists
    replies for the first attempts of that call (reversed is None for answers); `point`
    is what the rater reads, `reversed_point` what it reads with the options reversed."""

    def __init__(self, point=scripted_point, reversed_point=None, faults=None,
                 replies=None):
        self.point = point
        self.reversed_point = reversed_point or point
        self.faults = faults or {}
        self.replies = replies or {}  # a fixed reply text for a call, instead of a number
        self.seen: Counter = Counter()

    def key(self, request: Request) -> tuple:
        item = item_of(request)
        reversed_order = listed_reversed(request) if kind(request) == "rate" else None
        return kind(request), item.id, request.body["seed"], reversed_order

    def __call__(self, request: Request) -> Reply:
        key = self.key(request)
        attempt = self.seen[request.digest]
        self.seen[request.digest] += 1
        faults = self.faults.get(key, [])
        if attempt < len(faults):
            return faults[attempt]
        item, seed = item_of(request), request.body["seed"]
        if key in self.replies:
            return Reply(self.replies[key])
        if kind(request) == "answer":
            word = WORDS[scripted_point(item, seed) - 1]
            return Reply(f"I {word} do that, says {request.model} in run {seed}.")
        point = (self.reversed_point if key[3] else self.point)(item, seed)
        return Reply(number_for(request, point))


def args(tmp_path: Path, *extra: str, model: str = MODEL) -> list[str]:
    return ["lmlpa", "run", "--model", model, "--rater", RATER,
            "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "out.parquet"),
            "--answers-out", str(tmp_path / "answers" / "a.json"), "--backoff", "0", *extra]


def long_scores(path: Path) -> pd.DataFrame:
    return read_scores([path]).long()


# ------------------------------------------------------------------ prompts, parsing

def test_the_rater_options_and_their_reversal():
    # Normal: bfi.scale_wording's numbering; reversed: the labels from the other end,
    # numbered 5 down to 1 again.
    wording = "; ".join(f"{n} {label}" for n, label in options("O"))
    assert wording == bfi.scale_wording("O")
    assert options("O", True) == [(5, "Very Conservative"), (4, "Conservative"),
                                  (3, "Neither Open Nor Conservative"), (2, "Open"),
                                  (1, "Very Open")]
    assert options("N")[0] == (5, "Very Emotionally Unstable")


@pytest.mark.parametrize(("reply", "reversed_order", "number"), [
    ("4", False, 4), (" 2.\n", False, 2), ("**5**", False, 5), ("Rating: 3", False, 3),
    ("4.0", False, 4), ("Very Open", False, 5), ("open", False, 4),
    ("Neither Open Nor Conservative", False, 3), ("5. Very Open", False, 5),
    ("Very Open", True, 1), ("2. Open", True, 2), ("Conservative", True, 4),
])
def test_readable_replies(reply, reversed_order, number):
    assert parse_rating(reply, "O", reversed_order).number == number


@pytest.mark.parametrize(("reply", "needle"), [
    ("", "no option number or label in an empty reply"),
    ("I cannot say.", "no option number or label in 'I cannot say.'"),
    ("6", "6 is not an option 1-5"), ("0", "0 is not an option"),
    ("3 or 4", "more than one number"), ("4/5", "more than one number"),
    ("Open or Conservative", "several options"),
    ("5. Open", "its number and its label disagree"),
])
def test_unreadable_replies_keep_the_reason(reply, needle):
    rating = parse_rating(reply, "O")
    assert rating.number is None and needle in rating.note


def test_neuroticism_labels_are_told_apart():
    assert parse_rating("Very Emotionally Stable", "N").number == 1
    assert parse_rating("Emotionally Unstable", "N").number == 4
    assert parse_rating("Unconscientious", "C").number == 2


# ------------------------------------------------------------------ the direction

@pytest.mark.parametrize("said", [5, 1])
def test_a_rater_that_always_says_the_same_gives_every_trait_that_score(tmp_path, said):
    with ChatServer(Script(point=lambda item, seed: said)) as server:
        result = run_cli(args(tmp_path, "--include-dropped"), api_env(server.url))
        assert result.exit_code == 0, result.output
    scores = long_scores(tmp_path / "out.parquet")
    assert len(scores) == 44
    by_item = dict(zip(scores["prompt_id"], scores["score"], strict=True))
    # Item by item: a reverse-keyed item's stored score is 6 - the rater's number.
    for number in range(1, 45):
        expected = 6 - said if number in REVERSE_KEYED else said
        assert by_item[f"Q{number}"] == expected, number
    assert set(scores["meta.rater_score"]) == {str(said)}
    assert set(scores["meta.bfi_key"][scores["score"] != said]) == (
        {"reverse"} if said != 3 else set())
    # ...so `ffsite big-five` gives every trait exactly the rater's number.
    for dropped in ([], ["--include-dropped"]):
        result = run_cli(["big-five", str(tmp_path / "out.parquet"), "--format", "json",
                          *dropped], {})
        assert result.exit_code == 0, result.output
        table = json.loads(result.output)
        assert len(table) == 5 and {row["score"] for row in table} == {float(said)}
        assert {row["rater"] for row in table} == {RATER}


# ------------------------------------------------------------------ end to end

FAULTS = {
    ("answer", "Q1", 0, None): [Reply(status=429, headers={"Retry-After": "0"})],
    ("answer", "Q2", 1, None): [Reply(status=500)],
    ("answer", "Q3", 0, None): [Reply(drop=True)],
    ("answer", "Q4", 0, None): [Reply(raw_body=b"not json")],
    ("answer", "Q5", 1, None): [Reply(status=500)] * 3,  # fails: 3 attempts
    ("rate", "Q10", 1, True): [Reply(status=503)],
}
# Q7's first run: a reply without a number or a label; Q8's second run, rated with the
# options reversed: a label alone (Q8 is rated Very Conscientious there, by the script).
REPLIES = {("rate", "Q7", 0, False): "I would rather not rate this.",
           ("rate", "Q8", 1, True): "Very Conscientious."}


def reversed_point(item: bfi.Item, seed: int) -> int:
    """An order-sensitive rater: with reversed options, every third item a point higher."""
    point = scripted_point(item, seed)
    return min(point + 1, 5) if item.number % 3 == 0 else point


def expected_table() -> pd.DataFrame:
    """Per trait, by hand: the rater's points (trait direction), each item the mean over
    the runs with a valid normal rating, the trait the mean over its used items."""
    lost = {("Q5", 1), ("Q7", 0)}
    rows = [(bfi.instrument().trait_names[item.trait], item.id, scripted_point(item, seed))
            for item in USED for seed in (0, 1) if (item.id, seed) not in lost]
    frame = pd.DataFrame(rows, columns=["trait", "item", "point"])
    per_item = frame.groupby(["trait", "item"])["point"].mean()
    return per_item.groupby("trait").agg(["mean", "size"])


def test_end_to_end_with_faults_then_big_five_then_the_site(tmp_path, monkeypatch, capsys):
    from sklearn.metrics import cohen_kappa_score

    script = Script(reversed_point=reversed_point, faults=FAULTS, replies=REPLIES)
    with ChatServer(script) as server:
        result = run_cli(args(tmp_path, "--seeds", "2", "--order-reversal",
                              "--max-attempts", "3", "--concurrency", "4"),
                         api_env(server.url))
        assert result.exit_code == 0, result.output
        assert server.max_in_flight <= 4
        attempts = Counter(r.digest for r in server.requests)
        # 80 answers (one failed after 3 attempts, four retried once) and two ratings of
        # each of the 79 answers (one retried once).
        assert len(attempts) == 80 + 2 * 79
        assert sorted(attempts.values()) == [1] * (80 + 158 - 6) + [2] * 5 + [3]

    summary = file_summary(tmp_path / "out.parquet")
    assert summary["tool"] == "ffsite lmlpa run"
    assert (summary["model"], summary["rater"], summary["items"], summary["seeds"]) == (
        MODEL, RATER, 40, 2)
    assert summary["calls"] == 79 + 158 and summary["failed_calls"] == 1
    assert summary["retries"] == 4 + 2 + 1
    assert (summary["ratings"], summary["invalid_ratings"]) == (160, 3)
    assert summary["complete"] is True and summary["order_reversal"] is True
    assert "calls: 237 answered (237 new, 0 from cache), 1 failed, 7 retries" in result.output
    assert "ratings: 160, invalid 3 (1.9%)" in result.output

    scores = long_scores(tmp_path / "out.parquet")
    assert set(scores["judge"]) == {RATER}
    assert (scores["response_id"] == MODEL + "/" + scores["prompt_id"] + "/seed-"
            + scores["seed"].astype(str)).all()
    # The invalid ratings are kept as responses without a score, with the reason.
    table = {row["response_id"]: row for row in pq.read_table(tmp_path / "out.parquet")
             .to_pylist()}
    q5 = table[f"{MODEL}/Q5/seed-1"]
    assert q5["meta.rating_note"] == q5["meta.rating_note_reversed"] == (
        "no answer: answer call failed: HTTP 500 after 3 attempts")
    q7 = table[f"{MODEL}/Q7/seed-0"]
    assert q7["meta.rating_note"] == ("rating unreadable: no option number or label in "
                                      "'I would rather not rate this.'")
    assert q7["meta.rater_score"] is None and q7["meta.rating_note_reversed"] is None
    assert len(table) == 80
    q8 = table[f"{MODEL}/Q8/seed-1"]
    assert scripted_point(bfi.instrument().item("Q8"), 1) == 5
    assert q8["meta.rater_score_reversed"] == "1" and q8["meta.rating_note_reversed"] is None

    # The answers: base data, texts and all, item by item, run by run.
    answers = json.loads((tmp_path / "answers" / "a.json").read_text("utf-8"))
    assert len(answers) == 79
    assert [(a["item"], a["seed"]) for a in answers][:3] == [("Q1", 0), ("Q1", 1), ("Q2", 0)]
    assert answers[0] == {"model": MODEL, "item": "Q1", "seed": 0,
                          "question": bfi.instrument().item("Q1").text,
                          "answer": f"I {WORDS[scripted_point(bfi.instrument().item('Q1'), 0) - 1]}"
                                    f" do that, says {MODEL} in run 0."}

    # `ffsite big-five` on the file: the scores are the rater's points, by hand.
    status, out, err = run_main(monkeypatch, capsys, "big-five", str(tmp_path / "out.parquet"),
                                "--format", "json")
    assert status == 0, err
    published = pd.DataFrame(json.loads(out)).set_index("trait")
    expected = expected_table()
    assert sorted(published.index) == sorted(expected.index)
    for trait, row in expected.iterrows():
        assert published.loc[trait, "score"] == pytest.approx(row["mean"]), trait
        assert published.loc[trait, "n_items"] == row["size"]
    # The order-reversal kappa, by scikit-learn over the rater's own points (the trait's
    # scale) of the answers rated both ways: 79 answers, less the unreadable Q7 run 0.
    pairs = []
    for item in USED:
        for seed in (0, 1):
            if (item.id, seed) in {("Q5", 1), ("Q7", 0)}:
                continue
            pairs.append((scripted_point(item, seed), reversed_point(item, seed)))
    kappa = cohen_kappa_score([a for a, _ in pairs], [b for _, b in pairs],
                              weights="linear", labels=[1, 2, 3, 4, 5])
    assert 0 < kappa < 1
    assert published["order_kappa"].tolist() == [pytest.approx(kappa)] * 5
    assert published["order_pairs"].tolist() == [len(pairs)] * 5

    # `ffsite build` with the file in an annotations folder: the Big Five page names
    # the model and the rater; the model's page has the panel.
    root = tmp_path / "siteroot"
    write_tiny(root / "annotations")
    (root / "annotations" / "lmlpa").mkdir()
    (root / "annotations" / "lmlpa" / "test-model.parquet").write_bytes(
        (tmp_path / "out.parquet").read_bytes())
    content = write_content(root / "content")
    status, out, err = run_main(monkeypatch, capsys, "build", "--annotations",
                                str(root / "annotations"), "--content", str(content),
                                "--templates", str(REPO / "templates"), "--out",
                                str(root / "site"), "--quiet")
    assert status == 0, err
    page = (root / "site" / "big-five.html").read_text("utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert f"Rated by {RATER}" in text and MODEL in text
    for trait, row in expected.iterrows():
        assert f"{row['mean']:.2f}" in text, trait
    model_page = (root / "site" / "models" / f"{MODEL}.html").read_text("utf-8")
    assert 'id="big-five"' in model_page


# ------------------------------------------------------------------ the guarantees

def test_a_finished_run_again_makes_no_call_and_writes_the_same_bytes(tmp_path):
    with ChatServer(Script()) as server:
        first = run_cli(args(tmp_path, "--order-reversal"), api_env(server.url))
        assert first.exit_code == 0, first.output
        made = len(server.requests)
        assert made == 40 * 3
        scores = (tmp_path / "out.parquet").read_bytes()
        answers = (tmp_path / "answers" / "a.json").read_bytes()
        # No key is needed when every call is cached.
        again = run_cli(args(tmp_path, "--order-reversal"),
                        {**api_env(server.url), "FFSITE_API_KEY": ""})
        assert again.exit_code == 0, again.output
        assert len(server.requests) == made
    assert "(0 new, 120 from cache)" in again.output
    # A rater the order does not move gives the same stored number both ways: the
    # reversed rating is turned back, then kept in the item's direction like the other.
    both = long_scores(tmp_path / "out.parquet").pivot(index="response_id",
                                                       columns="trait_set", values="score")
    assert len(both) == 40 and (both["lmlpa-bfi"] == both["lmlpa-bfi-reversed"]).all()
    assert (tmp_path / "out.parquet").read_bytes() == scores
    assert (tmp_path / "answers" / "a.json").read_bytes() == answers


def test_seeds_are_separate_draws_and_separate_cache_entries(tmp_path):
    with ChatServer(Script(), latency=0.01) as server:
        result = run_cli(args(tmp_path, "--seeds", "3", "--temperature", "0.7",
                              "--concurrency", "3"), api_env(server.url))
        assert result.exit_code == 0, result.output
        assert server.max_in_flight == 3  # the calls overlap, never more than asked
        answer_calls = [r for r in server.requests if not r.is_judge]
    assert len({r.digest for r in answer_calls}) == 120
    assert Counter(r.body["seed"] for r in answer_calls) == {0: 40, 1: 40, 2: 40}
    assert {r.body["temperature"] for r in answer_calls} == {0.7}
    rater_calls = [r for r in server.requests if r.is_judge]
    assert {r.body["temperature"] for r in rater_calls} == {0.0}
    assert {r.body["max_tokens"] for r in rater_calls} == {64}  # the default
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 240


def test_the_rater_can_have_room_to_reason(tmp_path):
    with ChatServer(Script()) as server:
        result = run_cli(args(tmp_path, "--rater-max-tokens", "4000"), api_env(server.url))
        assert result.exit_code == 0, result.output
        rater_calls = [r for r in server.requests if r.is_judge]
    assert rater_calls and {r.body["max_tokens"] for r in rater_calls} == {4000}
    summary = json.loads(pq.read_schema(tmp_path / "out.parquet").metadata[b"ffsite"])
    assert summary["extra"]["rater_max_tokens"] == 4000


def cache_key(request: Request) -> str:
    """The cache entry a request's answer goes to: every field of the request, its kind
    and its prompt's version (how `Api.call` keys a call)."""
    if request.is_judge:
        return call_key(kind="lmlpa-rate", **request.body, prompt=RATER_VERSION)
    return call_key(kind="lmlpa-answer", **request.body, prompt=ANSWER_VERSION)


def test_kill_and_resume_pays_no_call_twice_and_gives_the_same_bytes(tmp_path):
    concurrency = 4
    with ChatServer(Script(), latency=0.05) as server:
        env = api_env(server.url)
        killed = run_subprocess(args(tmp_path, "--concurrency", str(concurrency)), env)
        deadline = time.monotonic() + 60
        while len(server.answered) < 30 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        server.settle()  # (requests the killed run sent are all counted)
        asked_before = len(server.requests)
        cached = {path.stem for path in (tmp_path / "cache").rglob("*.json")}
        # (A few answers the server sent may not have reached the cache before the kill.)
        assert 20 <= len(cached) < 80 and not (tmp_path / "out.parquet").exists()

        resumed = run_subprocess(args(tmp_path, "--concurrency", str(concurrency)), env)
        stdout, stderr = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, stderr
        resumed_keys = Counter(cache_key(r) for r in server.requests[asked_before:])

        fresh_dir = tmp_path / "fresh"
        fresh = run_subprocess(["lmlpa", "run", "--model", MODEL, "--rater", RATER,
                                "--cache-dir", str(fresh_dir / "cache"), "--out",
                                str(fresh_dir / "out.parquet"), "--answers-out",
                                str(fresh_dir / "answers" / "a.json")], env)
        assert fresh.wait(timeout=120) == 0
        everything = {cache_key(r) for r in server.requests[asked_before:]}
    # The resumed run asked once for each call not in the cache at the kill (those in
    # flight then included), and never for one that was: no answered call paid twice.
    assert not resumed_keys.keys() & cached
    assert set(resumed_keys.values()) == {1} and len(resumed_keys) + len(cached) == 80
    assert resumed_keys.keys() | cached == everything
    assert f"({len(resumed_keys)} new, {len(cached)} from cache)" in stdout
    assert (tmp_path / "out.parquet").read_bytes() == (fresh_dir / "out.parquet").read_bytes()
    assert (tmp_path / "answers" / "a.json").read_bytes() == (
        fresh_dir / "answers" / "a.json").read_bytes()


def test_429_waits_for_retry_after(tmp_path):
    faults = {("answer", item.id, 0, None): [Reply(status=429, headers={"Retry-After": "0.3"})]
              for item in USED[:3]}
    with ChatServer(Script(faults=faults)) as server:
        result = run_cli(args(tmp_path), api_env(server.url))
        assert result.exit_code == 0, result.output
        for item in USED[:3]:
            times = [r.time for r in server.requests
                     if not r.is_judge and item_of(r) is item]
            assert len(times) == 2 and times[1] - times[0] >= 0.3
    assert file_summary(tmp_path / "out.parquet")["retries"] == 3


def test_the_key_is_written_nowhere(tmp_path):
    echo = {("rate", "Q1", 0, False): [Reply(f"bad key {KEY}", status=429,
                                             headers={"Retry-After": "0"})],
            ("answer", "Q2", 0, None): [Reply(f"Incorrect API key provided: {KEY}",
                                              status=400)]}

    class Echo(Script):
        def __call__(self, request):
            reply = super().__call__(request)
            if kind(request) == "answer" and reply.status == 200:
                reply.content += f" (sent with {request.headers.get('authorization')})"
            return reply

    with ChatServer(Echo(faults=echo)) as server:
        process = run_subprocess(args(tmp_path, "--log", str(tmp_path / "run.log"),
                                      "--max-invalid", "0.5"), api_env(server.url))
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) == 39 + 39 + 3  # cache entries, scores, answers, log
    for secret in (KEY, KEY[:-5]):
        for path in written:
            assert secret.encode() not in path.read_bytes(), (secret, path)
        assert secret not in stdout and secret not in stderr
    # The echoes were there, and were redacted on the way in.
    assert "sent with Bearer [redacted]" in (tmp_path / "answers" / "a.json").read_text()
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    note = next(row["meta.rating_note"] for row in rows if row["prompt_id"] == "Q2")
    assert note == "no answer: answer call failed: HTTP 400: Incorrect API key provided: " \
                   "[redacted]"


def test_dry_run_estimates_per_model_and_sends_nothing(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({MODEL: {"input": 1.0, "output": 2.0},
                                  RATER: {"input": 3.0, "output": 4.0}}))
    with ChatServer(Script()) as server:
        result = run_cli(args(tmp_path, "--dry-run", "--order-reversal", "--seeds", "2",
                              "--prices", str(prices)), api_env(server.url))
        assert result.exit_code == 0, result.output
        assert server.requests == []
        lines = result.output.splitlines()
        assert lines[1].startswith(f"answers: 80 calls to {MODEL} (0 more cached)")
        assert lines[2].startswith(f"ratings: 160 calls to {RATER} (0 more cached)")
        assert "~$" in lines[1] and "~$" in lines[2]
        assert lines[-1] == "dry run: nothing was sent"
        # Half the answers in the cache: the estimate counts them as free, and prices
        # their ratings from the cached texts.
        assert run_cli(args(tmp_path, "--seeds", "1"), api_env(server.url)).exit_code == 0
        made = len(server.requests)
        again = run_cli(args(tmp_path, "--dry-run", "--order-reversal", "--seeds", "2",
                             "--prices", str(prices)), api_env(server.url))
        assert len(server.requests) == made
    lines = again.output.splitlines()
    assert lines[1].startswith(f"answers: 40 calls to {MODEL} (40 more cached)")
    assert lines[2].startswith(f"ratings: 120 calls to {RATER} (40 more cached)")


def test_max_cost_stops_at_the_budget_and_says_so(tmp_path):
    # Cheap answers, a dear rater: the budget runs out among the ratings.  (A rating
    # reserves at most ~270 tokens, $0.27 at $1000 per million: $5 buys about 18.)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({MODEL: {"input": 0.01, "output": 0.01},
                                  RATER: {"input": 1000.0, "output": 1000.0}}))
    with ChatServer(Script()) as server:
        result = run_cli(args(tmp_path, "--prices", str(prices), "--max-cost", "5",
                              "--concurrency", "1"), api_env(server.url))
        assert result.exit_code == 0, result.output
        rated = [r for r in server.requests if r.is_judge]
        assert len(server.requests) - len(rated) == 40 and 10 < len(rated) < 40
        assert "stopped at the budget: --max-cost 5.0" in result.output
        summary = file_summary(tmp_path / "out.parquet")
        assert summary["complete"] is False and summary["cost_usd"] <= 5
        # Only finished work is in the file: no rating stands for one never made.
        assert summary["ratings"] == summary["rating_calls"] == len(rated)
        assert len(long_scores(tmp_path / "out.parquet")) == len(rated)
        finished = run_cli(args(tmp_path, "--prices", str(prices), "--max-cost", "100"),
                           api_env(server.url))
        assert finished.exit_code == 0, finished.output
        assert len(server.requests) == 80
    assert file_summary(tmp_path / "out.parquet")["complete"] is True


def test_a_budget_spent_before_any_rating_writes_nothing(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({MODEL: {"input": 1000.0, "output": 1000.0},
                                  RATER: {"input": 1000.0, "output": 1000.0}}))
    with ChatServer(Script()) as server:
        result = run_cli(args(tmp_path, "--prices", str(prices), "--max-cost", "2",
                              "--concurrency", "1"), api_env(server.url))
        assert 0 < len(server.requests) < 40 and not any(r.is_judge for r in server.requests)
    assert result.exit_code != 0
    assert str(result.exception).startswith("nothing was rated: the --max-cost budget ran out")
    assert not (tmp_path / "out.parquet").exists() and not (tmp_path / "answers").exists()


def test_too_many_invalid_ratings_write_nothing(tmp_path):
    replies = {("rate", item.id, 0, False): "no idea" for item in USED[:10]}
    with ChatServer(Script(replies=replies)) as server:
        result = run_cli(args(tmp_path), api_env(server.url))
    assert result.exit_code != 0
    message = str(result.exception)
    assert message.startswith("25.0% of the ratings are invalid, more than --max-invalid 20%")
    assert "rating unreadable: no option number or label in 'no idea'" in message
    assert not (tmp_path / "out.parquet").exists()
    assert not (tmp_path / "answers").exists()


def test_answers_never_go_into_annotations(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for answers_out in ("annotations/answers.json", "site/annotations/x/a.json",
                        "out/a.json"):
        status, out, err = run_main(monkeypatch, capsys, "lmlpa", "run", "--model", MODEL,
                                    "--rater", RATER, "--out", "out/r.parquet",
                                    "--answers-out", answers_out, "--dry-run")
        assert status == 1 and out == ""
        assert err.startswith(f"error: --answers-out {answers_out}: the answers are texts")
        assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("flag", "value", "problem"), [
    ("--model", "m\x1b[31m", "control character U+001B"), ("--rater", " ", "empty"),
    ("--dataset", "d\x00", "control character U+0000")])
def test_names_the_file_cannot_hold_stop_before_any_call(tmp_path, monkeypatch, capsys,
                                                         flag, value, problem):
    monkeypatch.chdir(tmp_path)
    names = {"--model": MODEL, "--rater": RATER, "--dataset": "lmlpa", flag: value}
    status, out, err = run_main(monkeypatch, capsys, "lmlpa", "run",
                                *[part for pair in names.items() for part in pair],
                                "--dry-run")
    assert status == 1 and out == ""
    assert err.startswith(f"error: {flag} {value!r}: ") and problem in err
    assert err.count("\n") == 1


def test_default_paths(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with ChatServer(Script()) as server:
        for name, value in api_env(server.url).items():
            monkeypatch.setenv(name, value)
        status, out, err = run_main(monkeypatch, capsys, "lmlpa", "run", "--model",
                                    "org/model:free", "--rater", RATER, "--cache-dir",
                                    "cache")
    assert status == 0, err
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                     if p.is_file() and "cache" not in p.parts)
    assert len(written) == 2
    assert re.fullmatch(r"annotations/lmlpa/org-model-free-[0-9a-f]{8}\.parquet", written[0])
    assert re.fullmatch(r"lmlpa-answers/org-model-free-[0-9a-f]{8}\.json", written[1])
    assert f"wrote {written[0]}: 40 ratings" in out
    assert np.isfinite(long_scores(tmp_path / written[0])["score"]).all()


def test_an_empty_answer_is_not_rated_and_says_why(tmp_path):
    replies = {("answer", "Q1", 0, None): "  "}
    with ChatServer(Script(replies=replies)) as server:
        result = run_cli(args(tmp_path), api_env(server.url))
        assert result.exit_code == 0, result.output
        assert not any(r.is_judge and item_of(r).id == "Q1" for r in server.requests)
    rows = {row["prompt_id"]: row for row in pq.read_table(tmp_path / "out.parquet").to_pylist()}
    assert rows["Q1"]["meta.rating_note"] == "no answer: the model's reply was empty"
    assert "Q1" not in set(long_scores(tmp_path / "out.parquet")["prompt_id"])
    assert file_summary(tmp_path / "out.parquet")["invalid_ratings"] == 1


def test_a_second_rater_of_the_same_answers_needs_its_own_dataset(tmp_path, monkeypatch,
                                                                   capsys):
    other = "other-rater"
    first, second = Script(), Script(point=lambda item, seed: 6 - scripted_point(item, seed))

    def handler(request: Request) -> Reply:
        return (second if request.model == other else first)(request)

    folder = tmp_path / "ratings"
    with ChatServer(handler) as server:
        env = api_env(server.url)
        assert run_cli(args(tmp_path, "--out", str(folder / "a.parquet")), env).exit_code == 0
        made = len(server.requests)
        result = run_cli([*args(tmp_path, "--out", str(folder / "b.parquet"),
                                "--answers-out", str(tmp_path / "b.json"),
                                "--dataset", "lmlpa-b"), "--rater", other], env)
        assert result.exit_code == 0, result.output
        # The answers came from the cache: the second run only rated.
        assert all(r.is_judge and r.model == other for r in server.requests[made:])
        clash = run_cli([*args(tmp_path, "--out", str(tmp_path / "clash" / "b.parquet"),
                               "--answers-out", str(tmp_path / "b.json")),
                         "--rater", other], env)
        assert clash.exit_code == 0, clash.output
    status, out, err = run_main(monkeypatch, capsys, "big-five", str(folder), "--format",
                                "json")
    assert status == 0, err
    table = pd.DataFrame(json.loads(out))
    assert sorted(set(table["rater"])) == [other, RATER] and len(table) == 10
    mine = table.set_index(["rater", "trait"])["score"]
    for trait in bfi.instrument().trait_names.values():
        assert mine[(other, trait)] == pytest.approx(6 - mine[(RATER, trait)])
    # In one dataset, the two files disagree about the same responses: one clear line.
    (tmp_path / "clash" / "a.parquet").write_bytes((folder / "a.parquet").read_bytes())
    status, out, err = run_main(monkeypatch, capsys, "big-five", str(tmp_path / "clash"))
    assert status == 1 and err.count("\n") == 1
    assert "has another 'meta.rater_score' in another scores file" in err
