"""CSV that is safe to open in a spreadsheet.

Model names, trait wordings and metadata come from contributors; a CSV cell or header
"=HYPERLINK(...)" opened in a spreadsheet runs as a formula.  Such texts get a leading
apostrophe (the usual neutraliser: the spreadsheet shows the text as typed).  Numbers are
untouched; JSON output keeps every value exactly as it is.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_text(value: object) -> object:
    """`value` with an apostrophe in front if it is text a spreadsheet would run."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of `frame` whose text cells and column names cannot start a formula."""
    safe = frame.rename(columns=safe_text)
    for position in range(safe.shape[1]):
        values = safe.iloc[:, position]
        if values.dtype.kind in "biufcmM":
            continue
        text = values.to_numpy(dtype=object, copy=True)
        risky = np.array([isinstance(v, str) and v.startswith(FORMULA_STARTS) for v in text],
                         dtype=bool)
        if risky.any():
            text[risky] = ["'" + v for v in text[risky]]
            safe.isetitem(position, pd.Series(text, index=safe.index, dtype=object))
    return safe
