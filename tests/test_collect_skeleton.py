"""The three collecting methods share one skeleton (ffsite/collect/run.py): each goes
through the same dry run (the estimate, nothing sent, nothing written) and, against a
local server whose judges and rater answer nothing readable, through the same
invalid-share check (the estimate printed before the first call, then one error naming
the parameter, and no file written)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from annotate_helpers import KEY, REFERENCE, make_base_data
from chat_server import ChatServer, Reply

from ffsite.collect import run as skeleton
from ffsite.collect.annotate.inputs import load_prompt_set
from ffsite.collect.annotate.llm_judge import LlmJudge
from ffsite.collect.annotate.plan import Settings
from ffsite.collect.annotate.run import Annotate
from ffsite.collect.api import Api, Endpoint
from ffsite.collect.eigenbench.constitution import parse_constitution
from ffsite.collect.eigenbench.design import RunSettings
from ffsite.collect.eigenbench.run import EigenBench
from ffsite.collect.lmlpa.run import Lmlpa, LmlpaSettings
from ffsite.errors import ParameterError
from ffsite.traits import FF_V1


def annotate(tmp: Path) -> Annotate:
    settings = Settings(model="m", judge=LlmJudge("j", FF_V1[:2]), out=tmp / "out.parquet",
                        api=Api(tmp / "cache"), responses_out=tmp / "out.responses.json",
                        limit=3)
    return Annotate(settings, load_prompt_set("alpaca_eval", make_base_data(tmp / "base"),
                                              REFERENCE))


def eigenbench(tmp: Path) -> EigenBench:
    settings = RunSettings(
        models=("m1", "m2", "m3"), api=Api(tmp / "cache"), out=tmp / "out.parquet",
        responses_out=tmp / "out.responses.json", scenarios=2,
        constitution=parse_constitution("kind", "Prefer the kinder reply.\n", "test"))
    return EigenBench(settings, load_prompt_set("alpaca_eval", make_base_data(tmp / "base"),
                                                REFERENCE))


def lmlpa(tmp: Path) -> Lmlpa:
    return Lmlpa(LmlpaSettings(model="m", rater="r", api=Api(tmp / "cache"),
                               out=tmp / "scores" / "out.parquet",
                               answers_out=tmp / "texts" / "answers.json"))


def unreadable(request) -> Reply:
    """Models answer; judges, reflections and the rater say nothing a parser can read."""
    return Reply("I cannot say.")


@pytest.mark.parametrize("method", [annotate, eigenbench, lmlpa],
                         ids=["annotate", "eigenbench", "lmlpa"])
def test_every_method_takes_the_same_dry_run_and_invalid_share_path(tmp_path, method,
                                                                    monkeypatch):
    collecting = method(tmp_path)
    checked = []
    check_invalid = skeleton.check_invalid

    def spy(counted, collected, max_invalid):
        checked.append((counted, collected.n, len(collected.invalid)))
        check_invalid(counted, collected, max_invalid)

    monkeypatch.setattr(skeleton, "check_invalid", spy)
    before = sorted(tmp_path.rglob("*"))
    with ChatServer(unreadable) as server:
        endpoint = Endpoint(server.url, KEY)
        estimate: list[str] = []
        assert skeleton.run(collecting, endpoint, dry=True, echo=estimate.append) is None
        assert not server.requests and sorted(tmp_path.rglob("*")) == before
        said: list[tuple[str, int]] = []  # each line, and the calls made when it was said
        with pytest.raises(ParameterError) as caught:
            skeleton.run(collecting, endpoint,
                         echo=lambda line: said.append((line, len(server.requests))))
        assert server.requests
    # The dry run: the headline, a line per model and step, the closing line.
    assert estimate[0] == collecting.headline(collecting.plan())
    assert estimate[-1] == "dry run: nothing was sent" and len(estimate) >= 3
    assert all(re.fullmatch(r"\w+: \d+ calls to \S+ \(0 more cached\), ~\d+ tokens in, "
                            r"~\d+ out, cost unknown \(no price for \S+; give prices FILE\)",
                            line) for line in estimate[1:-1])
    # The run printed the same estimate, all of it before its first call, then stopped
    # at the invalid share: every vote or rating invalid, and no file written.
    assert said == [(line, 0) for line in estimate[:-1]]
    n = checked[0][1]
    assert checked == [(collecting.counted, n, n)] and n > 0
    assert caught.value.param == "max_invalid"
    assert str(caught.value).startswith(
        f"100.0% of the {collecting.counted} are invalid, more than max_invalid 20% (most "
        "common reason: ")
    assert not any(path.exists() for path in collecting.outputs())


def test_the_methods_are_the_skeletons():
    assert all(issubclass(kind, skeleton.Method) for kind in (Annotate, EigenBench, Lmlpa))
    assert {Annotate.counted, EigenBench.counted, Lmlpa.counted} == {"votes", "ratings"}
