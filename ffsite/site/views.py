"""Tables as the templates draw them: columns with sort cues, rows of cells.

Pages turn DataFrames into `Table`s here, so templates only loop; every text stays a
plain string that Jinja escapes.
"""

from __future__ import annotations

# long: every cell, column and card builder the pages share, so each page words a rank,
# an interval or a mark the same way; split by kind it would scatter one vocabulary.
import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from ffsite.metrics.ranking import RankRanges, has_signal, rank_ranges
from ffsite.site.output import Download
from ffsite.site.render import count, heat_class, json_script, number, percent, signed

_BREAK = re.compile(r"(?<=[ -])(?=\S)")  # where a header's name may break between lines
# What a reader should make of a higher value, per kind of column.
CUE_STRENGTH = "higher = shown more than the reference"
CUE_ENCOURAGED = "higher = encouraged more"
CUE_BETTER = "higher is better"


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    numeric: bool = True
    cue: str = ""  # how to read higher values (sort buttons say it)
    title: str = ""  # a longer label for the header's tooltip
    vertical: bool = False  # a narrow, rotated header (trait columns of the leaderboard)
    # A rank column: the key of the column whose estimate it ranks (data-ranks), so the
    # page's readers and tests can check the ranks against that column's order.
    ranks: str = ""

    @property
    def header_width(self) -> int:
        """The least width (ch) of a numeric column's header: its name fits in two lines
        with the sort arrow (two ch, kept with the last word) and the padding (three) -
        half the name plus four, or the wider line of its best break (at a space or
        after a hyphen) when the words split unevenly ("Muse Spark 1.1" needs 13, not
        11); 0 for a rotated or text header."""
        if not self.numeric or self.vertical:
            return 0
        half = math.ceil(len(self.label) / 2 + 4)
        parts = _BREAK.split(self.label)
        if len(parts) < 3:  # one or two words: no third line to prevent
            return half
        best_break = min(max(len("".join(parts[:i]).rstrip()), len("".join(parts[i:])) + 2)
                         for i in range(1, len(parts)))
        return max(half, best_break + 3)


@dataclass(frozen=True)
class Cell:
    text: str
    value: Any = None  # the exact value the sort uses (data-v); the text when None
    href: str | None = None
    css: str | None = None
    title: str | None = None
    header: bool = False  # the row's header cell (th scope=row)
    interval: str | None = None  # a 95% interval, shown under the value (not only on hover)
    # A rank (ffsite.metrics.ranking) shown after the value as its 95% range, "#1–9":
    # (place, best, worst).
    rank: tuple[int, int, int] | None = None
    badge: str | None = None  # a short mark after the text ("judge"), explained by badge_title
    badge_title: str | None = None
    # A rank cell's 95% range (best, worst): the page's data-rank, which tests and the
    # reader's tools can check against the order of the estimates.
    rank_range: tuple[int, int] | None = None


@dataclass
class Table:
    id: str
    caption: str
    columns: list[Column]
    rows: list[list[Cell]] = field(default_factory=list)
    download: Download | None = None
    note: str = ""


# What a chart does once the page's script runs (docs/performance.md):
STATIC = ""  # nothing: the drawing made at build time is the chart (hints are in the table)
# Menus pick what it shows: every choice was drawn at build time, the page's script shows
# the chosen one (fetched as a file), keeping the choice in the page's address.  No chart
# needs a chart library in the reader's browser.
MENUS = "menus"


@dataclass(frozen=True)
class Chart:
    id: str
    raw: dict[str, Any] = field(repr=False, compare=False, hash=False)  # charts.py spec
    description: str  # what the chart shows, in words (also in the spec)
    # The build's drawings of the chart, {"wide": svg, "narrow": svg} (drawings.py).
    drawing: dict[str, Markup] = field(default_factory=dict, repr=False, compare=False,
                                       hash=False)
    # With menus: every choice's drawings, the first choice first ((options chosen,
    # {"wide": svg, "narrow": svg})), and what the page's script needs to show them
    # (menus and the files of the choices, made when the page is written).
    choices: list[tuple[tuple[str, ...], dict[str, Markup]]] = field(
        default_factory=list, repr=False, compare=False, hash=False)
    menu: dict[str, Any] = field(default_factory=dict, repr=False, compare=False,
                                 hash=False)

    @property
    def has_controls(self) -> bool:
        """A menu inside the chart (then it is not one image)."""
        return "params" in self.raw

    @property
    def interactive(self) -> str:
        return MENUS if self.has_controls else STATIC

    @property
    def menu_json(self) -> Markup:
        """The menus and their choices' drawings, for the page's script."""
        return json_script(self.menu)


def chart(chart_id: str, spec: dict[str, Any]) -> Chart:
    return Chart(chart_id, spec, spec["description"])


def sort_value(value: Any) -> Any:
    """What a cell's data-v holds: the value, rounded so pages stay small."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return None
    return round(float(value), 4) if isinstance(value, float) else value


def strength_cell(value: float, finding: bool, valid_votes: int, min_valid: int,
                  low: float | None = None, high: float | None = None) -> Cell:
    """A heat cell with its 95% interval in view; cells with too few valid votes say so
    (on hover) instead of being coloured."""
    return ranked_strength_cell(value, finding, valid_votes, min_valid, low, high, None)


NO_VOTES = ("no valid votes: the judge never said one response showed the trait more, so "
            "there is no strength to show")
HEAT = ["strength", "finding", "valid_votes", "strength_low", "strength_high"]  # cell inputs


def metric_columns(cue: str = CUE_STRENGTH) -> list[Column]:
    return [Column("strength", "Strength", cue=cue,
                   title="(agreed − disagreed) / comparisons"),
            Column("relevance", "Relevance",
                   title="share of comparisons with an A/B trait vote"),
            Column("kappa", "Kappa", title="Cohen's kappa, adjusted: 2 × "
                   "(agreement − 0.5) on the A/B votes"),
            Column("valid", "Valid votes", title="comparisons with an A/B "
                   "trait vote"),
            Column("n", "Comparisons", title="comparisons counted")]


def metric_cells(row: Any, min_valid: int) -> list[Cell]:
    """Strength, relevance, kappa (each with its 95% interval in view) and the counts."""
    return [strength_cell(row.strength, row.finding, row.valid_votes, min_valid,
                          row.strength_low, row.strength_high),
            estimate_cell(row.relevance, row.relevance_low, row.relevance_high,
                          what="relevance"),
            estimate_cell(row.cohens_kappa, row.cohens_kappa_low, row.cohens_kappa_high,
                          signs=True, what="kappa") if row.valid_votes else Cell(
                "–", None, css="nf", title=NO_VOTES),
            Cell(count(row.valid_votes), int(row.valid_votes)),
            Cell(count(row.num_votes), int(row.num_votes))]


def interval_text(low: float | None, high: float | None, digits: int = 2,
                  signs: bool = False) -> str | None:
    """ "5.09–6.42" (signed: "−0.38 to +0.12"): a 95% interval as a cell shows it under
    its value (None if unknown)."""
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return None
    if signs:  # "-0.38–-0.12" would read as a range to a negative
        return f"{signed(low, digits)} to {signed(high, digits)}"
    if low < 0:  # unsigned numbers that can be negative (EigenBench Elo): the same
        return f"{number(low, digits)} to {number(high, digits)}"
    return f"{number(low, digits)}–{number(high, digits)}"


RANK_TITLE = ("place by the estimate; under it, the 95% range of the rank over the "
              "bootstrap resamples (how ranks are set: Methodology)")


def rank_column(cue: str = "1 = highest; 95% range under it", key: str = "rank",
                ranks: str = "") -> Column:
    """The column of `rank_cell`s; `ranks`: the key of the estimate's column."""
    return Column(key, "Rank", cue=cue, title=RANK_TITLE, ranks=ranks)


def ranked_cell(row: Any, of: int, ranked: bool = True, tied: int = 0) -> Cell:
    """`rank_cell` of a row with rank, rank_low and rank_high (a dash when not
    `ranked`); `tied`: how many models' ranges reach first place."""
    if not ranked:
        return Cell("–")
    return rank_cell(row.rank, of, row.rank_low, row.rank_high, tied)


def tied_first(frame: pd.DataFrame) -> int:
    """How many rows' rank ranges (rank_low) reach first place."""
    return int((frame["rank_low"] == 1).sum()) if "rank_low" in frame else 0


def range_text(low: int, high: int) -> str:
    """A rank's 95% range as cells show it: "1–6", or "sure" when it is one place."""
    return f"{low}–{high}" if low != high else "sure"


def rank_cell(rank: float, of: float, low: float | None = None,
              high: float | None = None, tied: int = 0) -> Cell:
    """"2 of 9" with its 95% range under it ("1–4"; "1–4, tied for first" when `tied`
    models' ranges reach first place and this one's does: how many others, in its
    title, so the cell stays narrow enough for a phone), or a dash for a model without a
    rank (no interval, no rating, or no signal)."""
    if pd.isna(rank) or int(rank) == 0:
        return Cell("–")
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        # No resampled ranks: the place by the estimate, with no claim of certainty.
        return Cell(f"{int(rank)} of {int(of)}", int(rank),
                    title=f"{int(rank)} of {int(of)} by the estimate (no interval of its rank)")
    low, high = int(low), int(high)
    text = range_text(low, high)
    title = f"{int(rank)} of {int(of)} by the estimate; 95% interval of its rank: {low} to {high}"
    if low == 1 and tied > 1:
        text += ", tied for first"
        title += f"; tied for first with {tied - 1} other{'s' if tied > 2 else ''}"
    return Cell(f"{int(rank)} of {int(of)}", int(rank), interval=text, title=title,
                rank_range=(low, high))


def estimate_cell(value: float, low: float | None, high: float | None, *, digits: int = 2,
                  signs: bool = False, css: str | None = None, what: str = "",
                  titled: bool = True) -> Cell:
    """A number with its 95% interval in view (a second line), and in the title for
    screen readers and copy-paste (`titled` False: not repeated in a title, where a
    page must stay light and the visible text already says it all)."""
    interval = interval_text(low, high, digits, signs)
    show = signed if signs else number
    title = f"{what + ': ' if what else ''}{show(value, digits)}, 95% interval {interval}" \
        if interval and titled else None
    return Cell(show(value, digits), sort_value(value), css=css, title=title,
                interval=interval)


def ranked_strength_cell(value: float, finding: bool, valid_votes: int, min_valid: int,
                         low: float | None, high: float | None,
                         rank: tuple[int, int, int] | None) -> Cell:
    """A heat cell with its 95% interval in view and its rank, (place, best, worst) with
    the range after it (None: not ranked); the title only says when there are too few
    valid votes."""
    if valid_votes == 0:  # (0 - 0) / comparisons: a zero that measured nothing
        return Cell("–", None, css="nf", title=NO_VOTES)
    title = None if finding else f"only {valid_votes} valid votes (fewer than {min_valid})"
    return Cell(signed(value), sort_value(value), css=heat_class(value, finding),
                title=title, interval=interval_text(low, high, signs=True), rank=rank)


# ------------------------------------------------------------- ranked summaries

@dataclass(frozen=True)
class Standing:
    """One model at one end of a trait, as a summary card lists it."""

    model: str
    href: str | None
    value: str
    interval: str | None
    rank: int | None  # None: the trait shows no signal, so nobody is ranked
    rank_low: int | None = None  # the 95% range of the rank from that end
    rank_high: int | None = None
    badge: str = ""  # "judge": the model judged its own answers (ffsite.site.judging)
    badge_title: str = ""

    @property
    def range(self) -> str:
        """"1–9", the 95% range of the rank, or "" when the range is the one place."""
        if self.rank_low is None or self.rank_low == self.rank_high:
            return ""
        return f"{self.rank_low}–{self.rank_high}"


@dataclass(frozen=True)
class ListedTrait:
    """A trait in a short list of findings (macros.html `trait_list`)."""

    trait_id: str
    trait: str
    strength: float
    interval: str  # its 95% interval, "+0.49 to +0.58"


def listed_traits(frame: pd.DataFrame) -> tuple[ListedTrait, ...]:
    """The rows of a findings frame (trait_id, trait, strength, strength_low,
    strength_high) as plain values: a page renders them without pandas (and a fork's
    pickle of the pages carries no frames)."""
    return tuple(ListedTrait(trait_id, trait, strength, interval_text(low, high, signs=True))
                 for trait_id, trait, strength, low, high in zip(
                     frame["trait_id"].tolist(), frame["trait"].tolist(),
                     frame["strength"].tolist(), frame["strength_low"].tolist(),
                     frame["strength_high"].tolist(), strict=True))


@dataclass(frozen=True)
class Glance:
    """A trait's summary card: the models at each end, with their ranks."""

    label: str
    href: str | None
    most: list[Standing]
    least: list[Standing]
    signal: bool
    low_end: str = ""  # what a low value means, e.g. "cold, clinical" (scored traits)
    high_end: str = ""
    no_signal: str = ""  # why the trait shows no signal, in words
    # How many models' 95% rank ranges reach the top and the bottom, of how many.
    tied_most: int = 0
    tied_least: int = 0
    of: int = 0
    # Models whose range reaches an end but that the card does not list (a poorly
    # measured model lower down): named after the count, so the count is not a mystery.
    also_most: tuple[str, ...] = ()
    also_least: tuple[str, ...] = ()

    @property
    def most_note(self) -> str:
        return share_text(self.tied_most, self.of, "first") + also_text(self.also_most)

    @property
    def least_note(self) -> str:
        return share_text(self.tied_least, self.of, "last") + also_text(self.also_least)


ALSO_NAMED = 3  # models named after a card's count; more are counted


def also_text(names: tuple[str, ...]) -> str:
    """" (not listed below: X; Y and 4 more)": who else could be at that end (names
    can hold commas: "Alpaca 7B, prompted to be concise")."""
    if not names:
        return ""
    named = "; ".join(names[:ALSO_NAMED])
    more = len(names) - ALSO_NAMED
    return f" (not listed below: {named}{f' and {more} more' if more > 0 else ''})"


def share_text(tied: int, of: int, end: str) -> str:
    """"tied: 14 of 46 could be first" (their 95% rank ranges reach that place)."""
    if tied <= 1:
        return f"only one of {of} could be {end}" if tied == 1 else ""
    return f"tied: {tied} of {of} could be {end}"


@dataclass(frozen=True)
class Ranked:
    """A trait's rankable rows (model, value, low, high) with ranks from each end."""

    # + most_rank, most_low, most_high and least_rank, least_low, least_high (0 when the
    # trait shows no signal): place and 95% range from the top and from the bottom
    frame: pd.DataFrame
    signal: bool

    def tied(self, end: str) -> int:
        """How many models' rank ranges reach the top ("most") or the bottom ("least")."""
        return int((self.frame[f"{end}_low"] == 1).sum()) if self.signal else 0


def rank_rows(frame: pd.DataFrame, *, null: float | None = None, band: float = 0.0,
              draws: np.ndarray | None = None) -> Ranked:
    """Rank `frame` (columns model, value, low, high; one trait) from both ends, highest
    value first, by `rank_ranges` (over `draws` [draws, rows] when the rows' bootstrap
    resamples are known; else from the intervals); or, with the columns rank, rank_low
    and rank_high already there, by those.  No ranks when the trait shows no signal."""
    low, high = frame["low"].to_numpy(float), frame["high"].to_numpy(float)
    signal = has_signal(low, high, null=null, band=band)
    if {"rank", "rank_low", "rank_high"} <= set(frame.columns):
        ranges = RankRanges(*(frame[c].to_numpy(np.int64)
                              for c in ("rank", "rank_low", "rank_high")))
    else:
        ranges = rank_ranges(frame["value"].to_numpy(float), draws, low=low, high=high)
    zero = np.zeros(len(frame), np.int64)
    bottom = ranges.from_bottom(frame["value"].to_numpy(float))
    columns = {}
    for end, found in (("most", ranges), ("least", bottom)):
        for part, values in (("rank", found.rank), ("low", found.low), ("high", found.high)):
            columns[f"{end}_{part}"] = values if signal else zero
    ranked = frame.drop(columns=[c for c in ("rank", "rank_low", "rank_high")
                                 if c in frame.columns]).assign(**columns).sort_values(
        ["value", "model"], ascending=[False, True], kind="stable")
    return Ranked(ranked.reset_index(drop=True), signal)


def standings(ranked: Ranked, count: int, name: Callable[[str], str],
              href: Callable[[str], str | None], *, signs: bool = False,
              marks: Callable[[str], dict[str, str]] = lambda model: {}
              ) -> tuple[list[Standing], list[Standing]]:
    """The `count` models at the top and at the bottom (lowest first) of a ranked
    trait; `name` and `href` name and link a model id, `marks` gives its badge fields
    (`judge_badge`); `signs`: values are signed (strengths), else plain numbers
    (means)."""
    show = signed if signs else number

    def standing(row, end: str) -> Standing:
        shown = (name(row.model), href(row.model), show(row.value),
                 interval_text(row.low, row.high, signs=signs))
        if not ranked.signal:
            return Standing(*shown, None, **marks(row.model))
        low, high = int(getattr(row, f"{end}_low")), int(getattr(row, f"{end}_high"))
        return Standing(*shown, int(getattr(row, f"{end}_rank")), low, high,
                        **marks(row.model))
    frame = ranked.frame
    top = [standing(r, "most") for r in frame.head(count).itertuples()]
    bottom = [standing(r, "least") for r in frame.iloc[::-1].head(count).itertuples()]
    return top, bottom


def glance(label: str, href: str | None, ranked: Ranked, most: list[Standing],
           least: list[Standing], name: Callable[[str], str] = str, **words: str) -> Glance:
    """A trait's card from its ranked rows and standings, with how many share each end
    and (by `name`) those of them it does not list."""
    frame = ranked.frame

    def unlisted(rows: pd.DataFrame, listed: int, end: str) -> tuple[str, ...]:
        if not ranked.signal:
            return ()
        rest = rows.iloc[listed:]
        return tuple(name(m) for m in rest.loc[rest[f"{end}_low"] == 1, "model"])

    return Glance(label, href, most, least, ranked.signal, tied_most=ranked.tied("most"),
                  tied_least=ranked.tied("least"), of=len(frame),
                  also_most=unlisted(frame, len(most), "most"),
                  also_least=unlisted(frame.iloc[::-1], len(least), "least"), **words)


ANCHOR_INTERVAL = "fixed (anchor)"  # the anchor's Elo is 1000 by definition, not measured


FLOOR_MARK = "has 0s"
FLOOR_NOTE = (f"“{FLOOR_MARK}”: on some answers behind that mean a judge of the panel "
              "answered 0, below the rubric's lowest anchor of 1, so the panel's score of "
              "that answer is below 1 (typically 0.67: one judge's 0 beside two 1s); they are "
              "kept, as the dataset published them, and the mark's title counts them.")
# Where the table's own download carries the count too.
FLOOR_COUNTED = FLOOR_NOTE.removesuffix(".") + (
    ", as does this table's download (below_rubric_floor).")


def below_floor(cell: Cell, below: int, n: int, what: str = "mean") -> Cell:
    """`cell` (a mean score, or `what` rests on such scores) marked when some of its `n`
    scores lie under the rubric's floor (`floor_marks`)."""
    if not below:
        return cell
    return dataclasses.replace(cell, **floor_marks(
        {"badge": cell.badge, "badge_title": cell.badge_title}, below, n, what))


def floor_marks(marks: dict[str, Any], below: int, n: int, what: str = "mean"
                ) -> dict[str, Any]:
    """Badge fields `marks` (a judge's, or none) with, when `below` of the `n` scores
    behind the number lie under the rubric's floor, the "has 0s" mark after them: the
    scores stay in the mean, as the dataset published it, and the mark says so."""
    if not below:
        return marks
    title = (f"{below} of the {n} scores behind this {what} lie below the rubric's lowest "
             "anchor (a judge of the panel answered 0); kept, as the dataset published them")
    if marks.get("badge"):
        return {"badge": f"{marks['badge']} · {FLOOR_MARK}",
                "badge_title": f"{marks['badge_title']}; {title}"}
    return {"badge": FLOOR_MARK, "badge_title": title}


def elo_cell(value: float, low: float, high: float) -> Cell:
    """An Elo rating with its 95% interval in view; the anchor's interval, [1000, 1000]
    by construction, reads as fixed rather than as a certainty."""
    if low == high:
        return Cell(number(value, 0), sort_value(value), interval=ANCHOR_INTERVAL,
                    title=f"Elo: {number(value, 0)}, fixed by definition (the anchor), so "
                          "its 95% interval has no width")
    return estimate_cell(value, low, high, digits=0, what="Elo")


def percent_cell(value: float) -> Cell:
    return Cell(percent(value), sort_value(value))


def count_cell(value: int) -> Cell:
    return Cell(count(value), int(value))
