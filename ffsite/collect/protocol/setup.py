"""From a protocol's name and a user's choices to the method that runs it.

Every choice left out (None) is the protocol's; a choice that does not apply to the
protocol's kind is an error naming it.  Judges: the protocol's by default, each at its
API model (`judge_models` "NAME=MODEL" says which model stands for a judge on your
provider: still the protocol's judge); `judges` names other judges (the run is then
kept apart, compare.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ffsite.collect.api import Api
from ffsite.collect.files import beside, contribution_out
from ffsite.collect.protocol import compare
from ffsite.collect.protocol.spec import Judge, PanelProtocol, Protocol, ScoredProtocol
from ffsite.collect.run import MAX_INVALID, Method
from ffsite.datasets import PROTOCOLS
from ffsite.errors import FfsiteError, ParameterError

# The choices each kind takes beyond the shared ones (model, judges, out, limit, ...).
SCORED_CHOICES = ("answer_sets", "repetitions", "reasks", "temperature", "max_tokens",
                  "judge_temperature", "judge_max_tokens")
PANEL_CHOICES = ("anchor", "comparisons", "anchor_share", "reasks", "temperature",
                 "max_tokens", "judge_temperature", "judge_max_tokens", "seed",
                 "population")
VOTES_CHOICES = ("votes", "temperature", "max_tokens", "judge_max_tokens", "responses")


def protocols() -> dict[str, Protocol]:
    """Every dataset's protocol, by name."""
    found = {}
    for record in PROTOCOLS:
        protocol = record.hook("protocol")()
        found[protocol.name] = protocol
    return found


def find_protocol(name: str) -> Protocol:
    known = protocols()
    if name not in known:
        raise FfsiteError(f"protocol {name!r}: no such protocol; pick one of "
                          + ", ".join(sorted(known)) + " (ffsite protocol list)")
    return known[name]


def choose_judges(protocol: Protocol, judges: Sequence[str] = (),
                  judge_models: Sequence[str] = ()) -> tuple[Judge, ...]:
    """The run's judges: `judges` (names, each its own API model) or the protocol's, and
    `judge_models` ("NAME=MODEL") mapping a judge to the model that stands for it."""
    chosen = ([Judge(name, name) for name in judges] if judges else list(protocol.judges))
    names = [j.name for j in chosen]
    models = {}
    for pair in judge_models:
        name, equals, model = pair.partition("=")
        if not equals or not name.strip() or not model.strip():
            raise ParameterError(f"{{judge_models}} {pair!r}: write NAME=MODEL (a judge's "
                                 "name, the API model that stands for it)", "judge_models")
        if name.strip() not in names:
            raise ParameterError(f"{{judge_models}} {pair!r}: {name.strip()!r} is not one "
                                 "of the run's judges (" + ", ".join(names) + ")",
                                 "judge_models")
        models[name.strip()] = model.strip()
    return tuple(Judge(j.name, models.get(j.name, j.model)) for j in chosen)


@dataclass(frozen=True)
class Choices:
    """What the user chose for a run; None: the protocol's."""

    models: tuple[str, ...]
    judges: tuple[Judge, ...]
    api: Api
    base_dir: Path | None
    out: Path | None = None
    responses_out: Path | None = None
    limit: int | None = None
    max_invalid: float = MAX_INVALID
    options: Mapping[str, Any] | None = None  # per kind: SCORED_CHOICES, ...


def method(protocol: Protocol, choices: Choices) -> Method:
    """The collecting method that runs `protocol` with `choices`."""
    options = {k: v for k, v in (choices.options or {}).items()
               if v is not None and v != ()}
    if isinstance(protocol, ScoredProtocol):
        _only(protocol, options, SCORED_CHOICES)
        return _scored(protocol, choices, options)
    if isinstance(protocol, PanelProtocol):
        _only(protocol, options, PANEL_CHOICES)
        from ffsite.collect.protocol.population import panel_method

        return panel_method(protocol, choices, options)
    _only(protocol, options, VOTES_CHOICES)
    from ffsite.collect.protocol.votes import votes_method

    return votes_method(protocol, choices, options)


def _only(protocol: Protocol, options: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for name in options:
        if name not in allowed:
            raise ParameterError(f"{{{name}}} does not apply to protocol {protocol.name} "
                                 f"(it takes " + ", ".join(f"{{{a}}}" for a in allowed)
                                 + ")", name)


def _one_model(protocol: Protocol, models: Sequence[str]) -> str:
    if len(models) != 1:
        raise ParameterError(f"protocol {protocol.name} adds one {{model}} at a time (got "
                             f"{len(models)})", "model")
    return models[0]


def default_out(protocol: Protocol, name: str, found: compare.Variant) -> Path:
    """annotations/contrib/<dataset>/<name>.parquet, `<name>@<label>` when apart."""
    return contribution_out(protocol.dataset, name if found.comparable
                            else f"{name}{compare.APART}{found.label}")


def _scored(protocol: ScoredProtocol, choices: Choices, options: dict) -> Method:
    from ffsite.collect.protocol.scored import ScoredRun
    from ffsite.collect.protocol.scored_plan import ScoredSettings

    model = _one_model(protocol, choices.models)
    if choices.base_dir is None:
        raise ParameterError(f"no base data: give {{base_dir}} DIR or set FFSITE_BASE_DATA "
                             f"to the folder that holds {protocol.dataset}/", "base_dir")
    chosen = {**protocol.settings, **options}
    found = compare.variant(protocol, choices.judges, chosen)
    out = choices.out or default_out(protocol, model, found)
    settings = ScoredSettings(
        protocol=protocol, material=protocol.load(choices.base_dir / protocol.dataset),
        model=model, judges=choices.judges, api=choices.api, out=out,
        answers_out=choices.responses_out or beside(out, ".responses.json"),
        limit=choices.limit, max_invalid=choices.max_invalid, **chosen)
    return ScoredRun(settings)
