"""A panel run's set-up: the answers of models it has rated already, from earlier runs'
answers files (`<name>.responses.json` beside their votes), which later runs compare new
models with without asking them again; and the run `setup.method` builds."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ffsite.collect.files import beside, contributions_of
from ffsite.collect.protocol import compare
from ffsite.collect.protocol.setup import Choices, default_out
from ffsite.collect.protocol.spec import PanelProtocol, Question
from ffsite.errors import FfsiteError

if TYPE_CHECKING:
    from ffsite.collect.protocol.panel import PanelRun


def read_population(paths: Sequence[Path], questions: Sequence[Question]
                    ) -> dict[str, dict[str, str]]:
    """Answers of models already rated, from earlier runs' answers files: model ->
    question id -> answer; an answer to a question whose text has changed is refused."""
    known = {q.id: q.text for q in questions}
    found: dict[str, dict[str, str]] = {}
    for path in paths:
        try:
            records = json.loads(Path(path).read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise FfsiteError(f"{path}: cannot read the answers ({exc}); give the "
                              ".responses.json an earlier run wrote") from None
        if not isinstance(records, list):
            raise FfsiteError(f"{path}: expected a list of answers")
        for row, record in enumerate(records):
            if not isinstance(record, dict) or not all(isinstance(record.get(k), str) for k
                                                       in ("model", "question_id",
                                                           "question", "answer")):
                raise FfsiteError(f"{path}: row {row}: needs model, question_id, question "
                                  "and answer (texts)")
            qid = record["question_id"]
            if known.get(qid) != record["question"]:
                raise FfsiteError(f"{path}: row {row}: question {qid!r} is not one of the "
                                  "protocol's questions as worded now; answer it again")
            answers = found.setdefault(record["model"], {})
            if qid in answers and answers[qid] != record["answer"]:
                raise FfsiteError(f"{path}: row {row}: a second, different answer of "
                                  f"{record['model']} to {qid}; keep one answers file per "
                                  "model")
            answers[qid] = record["answer"]
    return found


def panel_method(protocol: PanelProtocol, choices: Choices, options: dict) -> PanelRun:
    """The run `setup.method` builds for a panel protocol."""
    from ffsite.collect.protocol.panel import PanelRun, PanelSettings  # (it imports this)
    chosen = {**protocol.settings, **protocol.design,
              **{k: v for k, v in options.items()
                 if k in protocol.settings or k in protocol.design}}
    found = compare.variant(protocol, choices.judges, chosen)
    models = choices.models
    name = models[0] if len(models) == 1 else "+".join(models)
    out = choices.out or default_out(protocol, name, found)
    responses_out = choices.responses_out or beside(out, ".responses.json")
    paths = options.get("population")
    if paths is None:  # the answers beside the dataset's contributions, but this run's
        folder = contributions_of(protocol.dataset)
        paths = [p for p in sorted(folder.glob("*.responses.json"))
                 if p.resolve() != responses_out.resolve()] if folder.is_dir() else []
    population = read_population([Path(p) for p in paths], protocol.questions())
    return PanelRun(PanelSettings(
        protocol=protocol, models=tuple(models), judges=choices.judges,
        population=population, api=choices.api, out=out, responses_out=responses_out,
        seed=options.get("seed", 0), limit=choices.limit, max_invalid=choices.max_invalid,
        **chosen))
