"""The answers of models a panel has rated already, from earlier runs' answers files
(`<name>.responses.json` beside their votes): later runs compare new models with them
without asking them again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ffsite.collect.protocol.spec import Question
from ffsite.errors import FfsiteError


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
