"""ffsite.site.output: a published table's JSON is made column by column, and must be
json's own bytes for every kind of value; its CSV skips spreadsheet_safe only when that
would change nothing."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ffsite._spreadsheet import spreadsheet_safe
from ffsite.site.output import _formula_text, column_lists, records, table_json


def reference(frame: pd.DataFrame) -> str:
    """What the site wrote before the column-by-column encoding."""
    return json.dumps(records(frame), ensure_ascii=False, indent=1, allow_nan=False) + "\n"


FRAMES = {
    "numbers": pd.DataFrame({"elo": [1000.0, np.nan, 1e-7, -0.0, 12345678.9, 1e22],
                             "n": [1, 2, 3, -4, 0, 2**40], "top": [True, False] * 3}),
    "text": pd.DataFrame({"model": ["a", None, "é\u001f\"\\ \n", "", "\u2028", "x"],
                          "kept": pd.Series(["=1", 2, None, 1.5, True, np.nan],
                                            dtype=object)}),
    "empty": pd.DataFrame({"model": pd.Series([], dtype=object), "elo": []}),
    "no columns": pd.DataFrame(index=range(2)),
    "numpy scalars": pd.DataFrame({"v": pd.Series([np.float64(1.5), np.int64(2)],
                                                  dtype=object)}),
    "a name twice": pd.DataFrame([[1, 2]], columns=["a", "a"]),
    "names not text": pd.DataFrame({1: [0.5], "b": ["x"]}),
    "names with %": pd.DataFrame({"100%": [0.5], "%s": ["%d"], "b": ["x"]}),
    "a list": pd.DataFrame({"v": pd.Series([[1, 2], None], dtype=object)}),
    "no rows": pd.DataFrame({"elo": pd.Series([], dtype=float)}),
}


def outcome(write, frame: pd.DataFrame) -> tuple[str, object]:
    """The text written, or the kind of error raised."""
    try:
        return "written", write(frame)
    except Exception as exc:  # noqa: BLE001 - the same failure is the same outcome
        return "raised", type(exc)


@pytest.mark.parametrize("name", list(FRAMES))
def test_table_json_is_what_json_writes(name: str) -> None:
    frame = FRAMES[name]
    assert outcome(table_json, frame) == outcome(reference, frame)


def test_infinity_is_refused_as_json_refuses_it() -> None:
    frame = pd.DataFrame({"elo": [1.0, np.inf]})
    with pytest.raises(ValueError):
        reference(frame)
    with pytest.raises(ValueError):
        table_json(frame)


@pytest.mark.parametrize("frame, risky", [
    (pd.DataFrame({"model": ["a", "b"], "n": [-1, 2]}), False),  # numbers stay as they are
    (pd.DataFrame({"model": ["a", "=HYPERLINK()"]}), True),
    (pd.DataFrame({"+name": ["a"]}), True),
    (pd.DataFrame({"v": pd.Series(["x", "\tx"], dtype=object)}), True),
    (pd.DataFrame({"v": pd.Series([1.5, None, "@x"], dtype=object)}), True),  # not all text
    (pd.DataFrame({"v": pd.Series([1.5, None, "x="], dtype=object)}), False),
])
def test_formula_text_is_found_where_spreadsheet_safe_acts(frame: pd.DataFrame,
                                                           risky: bool) -> None:
    assert _formula_text(frame, column_lists(frame)) is risky
    changed = spreadsheet_safe(frame).to_csv(index=False) != frame.to_csv(index=False)
    assert changed is risky
