"""A Feedback Forensics protocol: `ffsite annotate`'s method with the protocol's judge,
traits and settings (every trait in one call per comparison, against the prompt set's
reference answers), its summary saying how the run compares with the protocol.

A run with another judge files its votes under that judge (the site splits a trait
voted on by two judges, ffsite.metrics.judges.separate_judges); one with other settings
under the judge's name and what differs, so the two are never counted as one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ffsite.collect.annotate.inputs import load_prompt_set
from ffsite.collect.annotate.llm_judge import LlmJudge
from ffsite.collect.annotate.plan import Settings, Work
from ffsite.collect.annotate.run import Annotate, Annotated
from ffsite.collect.files import responses_file
from ffsite.collect.protocol import compare
from ffsite.collect.protocol.setup import Choices, default_out
from ffsite.collect.protocol.spec import Judge, VotesProtocol
from ffsite.collect.run import Collected
from ffsite.errors import ParameterError


@dataclass(frozen=True)
class LabelledJudge(LlmJudge):
    """The LLM judge, its votes filed under `label` (the model it calls is `model`)."""

    label: str = ""

    @property
    def id(self) -> str:
        return self.label or self.model


@dataclass(frozen=True)
class ProtocolAnnotate(Annotate):
    """`ffsite annotate` under a protocol: its summary names the protocol and variant."""

    protocol: VotesProtocol | None = None
    variant: compare.Variant | None = None
    judges: tuple[Judge, ...] = ()

    def summary(self, work: Work, collected: Collected[Annotated]) -> dict:
        return {**super().summary(work, collected),
                **compare.summary_fields(self.protocol, self.variant),
                "judges": [j.name for j in self.judges],
                "judge_models": [j.model for j in self.judges],
                "judge_max_tokens": self.settings.judge.max_tokens}


def votes_method(protocol: VotesProtocol, choices: Choices, options: dict
                 ) -> ProtocolAnnotate:
    if len(choices.models) != 1:
        raise ParameterError(f"protocol {protocol.name} adds one {{model}} at a time",
                             "model")
    if len(choices.judges) != 1:
        raise ParameterError(f"protocol {protocol.name} has one judge; give one {{judges}}",
                             "judges")
    (model,), (judge,) = choices.models, choices.judges
    chosen = {**protocol.settings, **{k: v for k, v in options.items()
                                      if k in protocol.settings}}
    found = compare.variant(protocol, choices.judges, chosen)
    voter = LabelledJudge(judge.model, protocol.traits, n_votes=chosen["votes"],
                          temperature=chosen["temperature"],
                          max_tokens=chosen["judge_max_tokens"],
                          label=judge.name if found.comparable or not found.settings
                          else found.label)
    out = choices.out or default_out(protocol, model, found)
    responses = options.get("responses")
    settings = Settings(model=model, judge=voter, out=out, api=choices.api,
                        responses=responses,
                        responses_out=choices.responses_out or responses_file(out),
                        limit=choices.limit, temperature=chosen["temperature"],
                        max_tokens=chosen["max_tokens"], max_invalid=choices.max_invalid)
    return ProtocolAnnotate(settings, load_prompt_set(protocol.dataset, choices.base_dir),
                            protocol, found, choices.judges)
