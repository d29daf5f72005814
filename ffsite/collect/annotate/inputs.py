"""What an annotate run reads: the prompt set with reference answers, given responses,
traits."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ffsite.datasets import PROMPT_SETS, find
from ffsite.datasets.prompt_set import PromptSet
from ffsite.errors import FfsiteError, ParameterError
from ffsite.traits import AA30, FF_V1, PREFIX, Trait, trait_id

TRAIT_CHOICES = {"v1": FF_V1, "aa30": AA30}
PROMPT_ID_FIELDS = ("prompt_id",)
PROMPT_TEXT_FIELDS = ("instruction", "prompt")
RESPONSE_FIELDS = ("response", "output")


def prompt_set_names() -> tuple[str, ...]:
    """The prompt sets `load_prompt_set` knows: the datasets that have one."""
    return tuple(dataset.id for dataset in PROMPT_SETS)


def load_prompt_set(prompts: str, base_dir: Path | None, reference: str | None = None
                    ) -> PromptSet:
    """The prompt set of dataset `prompts`, with `reference`'s answers (default: the
    dataset's reference model), from the base data."""
    record = find(prompts)
    if record is None or record.prompt_set is None:
        raise ParameterError(f"{{prompts}} {prompts}: not a prompt set; use one of "
                             + ", ".join(prompt_set_names()), "prompts")
    if base_dir is None:
        raise ParameterError(f"no base data: give {{base_dir}} DIR or set FFSITE_BASE_DATA to "
                             f"the folder that holds {prompts}/", "base_dir")
    return record.hook("prompt_set")(base_dir / prompts, reference or record.reference_model)


def read_responses(path: str | os.PathLike, prompt_set: PromptSet) -> pd.Series:
    """Given answers (JSON list, JSONL or Parquet) as a Series prompt_id -> text."""
    records = _read_records(Path(path))
    id_field = _field(records, PROMPT_ID_FIELDS)
    text_field = _field(records, PROMPT_TEXT_FIELDS)
    response_field = _field(records, RESPONSE_FIELDS)
    if response_field is None or (id_field is None and text_field is None):
        raise FfsiteError(f"{path}: each record needs a response ('response' or 'output') "
                          "and its prompt ('prompt_id', or the text as 'instruction' or "
                          "'prompt')")
    if id_field is not None:
        ids = records[id_field].astype("string")
    else:
        ids = records[text_field].map(
            lambda t: prompt_set.prompt_id(t) if isinstance(t, str) else None)
    known = ids.isin(set(prompt_set["prompt_id"]))
    if not known.all():
        row = int((~known).to_numpy().argmax())
        shown = records[id_field or text_field].iloc[row]
        raise ParameterError(f"{path}: row {row}: prompt {str(shown)[:60]!r} is not in "
                             "the prompt set; answer the set's prompts exactly (see "
                             "{prompts})", "responses", "prompts")
    repeated = ids.duplicated()
    if repeated.any():
        row = int(repeated.to_numpy().argmax())
        raise FfsiteError(f"{path}: row {row}: a second response to prompt {ids.iloc[row]}; "
                          "give one response per prompt")
    texts = records[response_field]
    not_text = ~texts.map(lambda t: isinstance(t, str))
    if not_text.any():
        row = int(not_text.to_numpy().argmax())
        raise FfsiteError(f"{path}: row {row}: field '{response_field}' is not text")
    return pd.Series(texts.to_numpy(object), index=ids.to_numpy(object), name="response")


def _read_records(path: Path) -> pd.DataFrame:
    try:
        if path.suffix == ".parquet":
            return pq.read_table(path).to_pandas()
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".jsonl":
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            rows = json.loads(text)
    except OSError as exc:
        raise FfsiteError(f"{path}: cannot read ({exc.strerror})") from None
    except (ValueError, pa.ArrowInvalid) as exc:
        raise FfsiteError(f"{path}: not valid {path.suffix.lstrip('.') or 'JSON'} "
                          f"({str(exc).splitlines()[0]}); give JSON, JSONL or Parquet") from None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise FfsiteError(f"{path}: expected a list of records (objects)")
    return pd.DataFrame.from_records(rows)


def _field(records: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((name for name in names if name in records.columns), None)


def resolve_traits(option: str) -> tuple[Trait, ...]:
    """`v1`, `aa30`, or a file of wordings (one per line, or a JSON list of strings)."""
    if option in TRAIT_CHOICES:
        return TRAIT_CHOICES[option]
    path = Path(option)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ParameterError(f"{{traits}} {option}: not v1, aa30 or a readable file "
                             f"({exc.strerror})", "traits") from None
    if path.suffix == ".json":
        try:
            wordings = json.loads(text)
        except ValueError as exc:
            raise FfsiteError(f"{path}: not valid JSON ({exc})") from None
        if not isinstance(wordings, list) or not all(isinstance(w, str) for w in wordings):
            raise FfsiteError(f"{path}: expected a JSON list of trait wordings (strings)")
    else:
        wordings = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    wordings = [w.strip() for w in wordings if w.strip()]
    if not wordings:
        raise FfsiteError(f"{path}: no traits; write one wording per line")
    # "is more verbose" and "Select the response that is more verbose." are the same trait.
    full = [w if w.startswith(PREFIX) else PREFIX + w for w in wordings]
    seen: dict[str, int] = {}
    for line, wording in enumerate(full, start=1):
        if wording in seen:
            raise FfsiteError(f"{path}: trait {line} repeats trait {seen[wording]}")
        seen[wording] = line
    built_in = {t.wording: t for t in (*FF_V1, *AA30)}  # keep their set names
    return tuple(built_in.get(w) or Trait(trait_id(w), w, path.stem) for w in full)
