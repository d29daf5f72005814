"""Ratings of LMLPA's adapted BFI items made elsewhere (a CSV) to a scores file.

Columns: `model`, `item` (Q1-Q44), `score` (a whole number 1-5), and optionally `rater`
(who rated; "unknown" when absent or empty), `seed` (a whole number telling repeated runs
apart) and `order` (`normal`, the default, or `reversed` for a rating made with the
rater's options in reversed order, already turned back onto the normal scale).  The trait
and key of each item come from the instrument (ffsite.bfi), never from the CSV.

Each (model, item, seed) is one answer: one response of the scores file, with the item
as its prompt; each rater and order is a score column (ffsite.bfi names them).  Every bad
cell stops the import with one line naming the file line and the column.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ffsite import bfi
from ffsite.errors import FfsiteError
from ffsite.importers.result import ScoresImport

REQUIRED = ("model", "item", "score")
OPTIONAL = ("rater", "seed", "order")
DATASET = "lmlpa"
UNKNOWN_RATER = "unknown"
ORDERS = ("normal", "reversed")
_WHOLE = re.compile(r"^[+]?[0-9]+$")
_SEED_DIGITS = 18  # a scores file stores seeds as 64-bit integers


def import_likert(path: str | os.PathLike, dataset: str = DATASET) -> ScoresImport:
    """The CSV's ratings, checked, as one row per score (ffsite.format LONG_COLUMNS)."""
    path = Path(path)
    frame = _read(path)
    for column in REQUIRED:
        if column not in frame.columns:
            raise FfsiteError(f"{path}: column '{column}' is missing; a Likert CSV needs "
                              f"{', '.join(REQUIRED)} (optional: {', '.join(OPTIONAL)})")
    unknown = [c for c in frame.columns if c not in (*REQUIRED, *OPTIONAL)]
    if unknown:
        raise FfsiteError(f"{path}: column '{unknown[0]}' is not one this import reads; "
                          f"remove it (columns: {', '.join((*REQUIRED, *OPTIONAL))})")
    if frame.empty:
        raise FfsiteError(f"{path}: no ratings under the header; add rows")
    line = np.arange(len(frame)) + 2  # the header is line 1

    def fail(row: int, column: str, problem: str) -> FfsiteError:
        return FfsiteError(f"{path}: line {line[row]}, column '{column}': {problem}")

    model = frame["model"].str.strip()
    _first_bad(model == "", lambda r: fail(r, "model", "empty; name the model rated"))
    item = frame["item"].str.strip().str.upper()
    known = {i.id for i in bfi.instrument().items}
    _first_bad(~item.isin(known), lambda r: fail(
        r, "item", f"unknown item '{frame['item'].iat[r]}'; items are Q1-Q44"))
    score_text = frame["score"].str.strip()
    whole = score_text.str.fullmatch(_WHOLE.pattern)
    score = pd.to_numeric(score_text.where(whole), errors="coerce")
    low, high = bfi.SCALE
    _first_bad(score.isna() | (score < low) | (score > high), lambda r: fail(
        r, "score", f"'{frame['score'].iat[r]}' is not a whole number from {low} to {high}"))
    rater = frame["rater"].str.strip() if "rater" in frame.columns else pd.Series(
        "", index=frame.index)
    rater = rater.where(rater != "", UNKNOWN_RATER)
    seed = pd.Series(pd.NA, index=frame.index, dtype="Int64")
    if "seed" in frame.columns:
        seed_text = frame["seed"].str.strip()
        good = (seed_text == "") | (seed_text.str.fullmatch(_WHOLE.pattern) & (
            seed_text.str.lstrip("+").str.lstrip("0").str.len() <= _SEED_DIGITS))
        _first_bad(~good, lambda r: fail(
            r, "seed", f"'{frame['seed'].iat[r]}' is not a whole number of at most "
            f"{_SEED_DIGITS} digits (or empty)"))
        seed = pd.to_numeric(seed_text.where(seed_text != ""), errors="coerce").astype("Int64")
    order = frame["order"].str.strip().str.lower() if "order" in frame.columns else \
        pd.Series("", index=frame.index)
    order = order.where(order != "", "normal")
    _first_bad(~order.isin(ORDERS), lambda r: fail(
        r, "order", f"'{frame['order'].iat[r]}' is not normal or reversed (or empty)"))

    keys = pd.DataFrame({"model": model, "item": item, "rater": rater,
                         "seed": seed.astype(str),
                         "order": order})
    repeated = keys.duplicated().to_numpy()
    if repeated.any():
        row = int(np.argmax(repeated))
        first = int(np.argmax((keys == keys.iloc[row]).all(axis=1).to_numpy()))
        raise fail(row, "item", f"a second rating of {item.iat[row]} for model "
                   f"'{model.iat[row]}' by rater '{rater.iat[row]}'"
                   f"{'' if seed.isna().iat[row] else f' with seed {seed.iat[row]}'}"
                   f"{' in reversed order' if order.iat[row] == 'reversed' else ''} "
                   f"(the first is on line {line[first]}); keep one or give each a seed")

    reversed_order = (order == "reversed").to_numpy()
    long = rating_rows(dataset, model, item, rater, seed, reversed_order, score)
    raters = sorted(set(rater))
    return ScoresImport(
        frame=long, dataset=dataset,
        judges={r: "AI rater of LMLPA's open-ended BFI answers (imported ratings)"
                for r in raters if r != UNKNOWN_RATER},
        extra={"source": "likert-csv", "instrument": "LMLPA adapted BFI-44 "
               "(ffsite/data/lmlpa_items.toml)"},
        report=[f"ratings in reversed option order: {int(reversed_order.sum())}"]
        if reversed_order.any() else [])


def rating_rows(dataset: str, model: pd.Series, item: pd.Series, rater: pd.Series,
                seed: pd.Series, reversed_order: np.ndarray, score: pd.Series
                ) -> pd.DataFrame:
    """Checked ratings as scores-file rows (ffsite.format LONG_COLUMNS plus the item's
    trait and key): one response per (model, item, seed), one score column per rater and
    order.  `seed` is Int64 (NA: no seed); `score` may be NaN (no score: an invalid
    rating keeps its response and column but leaves the cell empty).  `ffsite lmlpa
    run` builds its rows here too, so imported and collected ratings have one layout."""
    items = {i.id: i for i in bfi.instrument().items}
    low, high = bfi.SCALE
    seed = pd.Series(seed, index=model.index).astype("Int64")
    seed_part = seed.map(lambda s: "" if s is pd.NA else f"/seed-{s}").astype(object)
    return pd.DataFrame({
        "dataset": dataset,
        "response_id": model + "/" + item + seed_part,
        "prompt_id": item,
        "model": model,
        "condition": None,
        "meta.bfi_trait": item.map({k: i.trait for k, i in items.items()}),
        "meta.bfi_key": item.map({k: "reverse" if i.reverse_keyed else "forward"
                                  for k, i in items.items()}),
        "judge": rater,
        "trait_id": [bfi.trait_id(i, r) for i, r in zip(item, reversed_order, strict=True)],
        "trait": item.map({k: i.text for k, i in items.items()}),
        "trait_set": np.where(reversed_order, bfi.REVERSED_SET, bfi.TRAIT_SET),
        "scale_min": float(low),
        "scale_max": float(high),
        "seed": seed,
        "score": pd.Series(score, index=model.index).astype(float),
    })


def _read(path: Path) -> pd.DataFrame:
    try:
        # No header row for pandas: it would rename a repeated column (score.1).
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, header=None,
                            encoding="utf-8-sig")  # a spreadsheet's byte-order mark
    except FileNotFoundError:
        raise FfsiteError(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise FfsiteError(f"{path}: is a folder; give the CSV file") from None
    except pd.errors.EmptyDataError:
        raise FfsiteError(f"{path}: empty; a Likert CSV starts with the header "
                          f"{','.join(REQUIRED)}") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise FfsiteError(f"{path}: not a readable CSV file ({str(exc).strip()}); fix it or "
                          "save it again as CSV (UTF-8)") from None
    header = pd.Index([str(c).strip().lower() for c in frame.iloc[0]])
    repeated = header.duplicated()
    if repeated.any():
        raise FfsiteError(f"{path}: column '{header[int(np.argmax(repeated))]}' appears "
                          "twice in the header; keep one")
    frame = frame.iloc[1:].reset_index(drop=True)
    frame.columns = header
    return frame


def _first_bad(bad: pd.Series, error) -> None:
    values = bad.to_numpy(bool)
    if values.any():
        raise error(int(np.argmax(values)))
