"""`ffsite protocol show`: a protocol in words, and with the base data, its counts."""

from __future__ import annotations

from pathlib import Path

from ffsite.collect.protocol.compare import shown
from ffsite.collect.protocol.spec import PanelProtocol, Protocol, ScoredProtocol


def describe(protocol: Protocol, base_dir: Path | None) -> list[str]:
    """What the protocol sends, who judges and how often; with `base_dir` (the base-data
    folder) also how many prompts and calls one model costs."""
    lines = [f"{protocol.name}: {protocol.about}",
             f"dataset: {protocol.dataset}; kind: {protocol.kind}; version "
             f"{protocol.version}",
             "judges: " + ", ".join(j.name if j.name == j.model else f"{j.name} (API: "
                                    f"{j.model})" for j in protocol.judges)]
    if protocol.panel:
        lines.append(f"numbers filed as: {protocol.panel}")
    lines.append("settings: " + ", ".join(
        f"{name} {'not sent' if value is None else shown(value)}"
        for name, value in protocol.settings.items()))
    if isinstance(protocol, PanelProtocol):
        lines.append("design (comparable whatever it is): " + ", ".join(
            f"{name} {shown(value)}" for name, value in protocol.design.items()))
    lines += [f"reproduces: {protocol.reproduces}", f"cannot reproduce or adds: "
              f"{protocol.differs}"]
    if isinstance(protocol, ScoredProtocol) and base_dir is not None:
        material = protocol.load(base_dir / protocol.dataset)
        units = material.units("<model>", protocol.answer_sets)
        answers = len(material.prompts) * protocol.answer_sets
        judge = len(units) * len(protocol.judges) * protocol.repetitions
        lines += [f"texts from: {material.source}",
                  f"one model: {answers} answer calls ({len(material.prompts)} prompts x "
                  f"{protocol.answer_sets}), {judge} judge calls ({len(units)} "
                  f"{protocol.unit}s x {len(protocol.judges)} judges x "
                  f"{protocol.repetitions}), plus re-asks of unreadable replies"]
    if isinstance(protocol, PanelProtocol):
        questions = protocol.questions()
        per_trait = len(questions) // max(len(protocol.traits), 1)
        lines.append(f"one model: {len(questions)} answer calls ({len(protocol.traits)} "
                     f"traits x ~{per_trait} questions), {len(protocol.traits)} x "
                     f"{protocol.comparisons} judge calls")
    return lines
