"""LMLPA's instrument: the 44 BFI items as open-ended questions, with trait and key.

The items live in ffsite/data/lmlpa_items.toml (sources cited there).  This module reads
them once and names things the same way everywhere: a rating of item Q6 is stored in a
scores file under trait id `bfi-Q6` in trait set `lmlpa-bfi`; a rating made with the
rater's options in reversed order (LMLPA's order-reversal check) under `bfi-Q6-reversed`
in trait set `lmlpa-bfi-reversed`, already turned back onto the normal scale (5 = the
trait's first label), so the two can be compared point for point.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources

TRAIT_SET = "lmlpa-bfi"
REVERSED_SET = "lmlpa-bfi-reversed"
TRAIT_SETS = (TRAIT_SET, REVERSED_SET)
SCALE = (1, 5)
# A reverse-keyed item's score counts towards its trait as (KEY_FLIP - score).
KEY_FLIP = SCALE[0] + SCALE[1]
TRAITS = ("O", "C", "E", "A", "N")  # the usual OCEAN order, used for every listing
DROPPED = ("Q22", "Q31", "Q35", "Q41")  # left out of LMLPA's final version

_TRAIT_ID = re.compile(r"^bfi-(Q[1-9][0-9]?)(-reversed)?$")


@dataclass(frozen=True)
class Item:
    id: str  # Q1 ... Q44
    number: int
    trait: str  # one of TRAITS
    reverse_keyed: bool
    dropped: bool
    text: str


@dataclass(frozen=True)
class Instrument:
    items: tuple[Item, ...]  # by number
    trait_names: dict[str, str]  # "N" -> "Neuroticism"
    labels: dict[str, tuple[str, ...]]  # trait -> the five labels, score 5 first

    def item(self, item_id: str) -> Item | None:
        return next((i for i in self.items if i.id == item_id), None)

    def used(self, include_dropped: bool = False) -> tuple[Item, ...]:
        return tuple(i for i in self.items if include_dropped or not i.dropped)


@functools.cache
def instrument() -> Instrument:
    """The items, checked: 44 of them, numbered 1-44, five traits."""
    data = tomllib.loads(resources.files("ffsite").joinpath(
        "data/lmlpa_items.toml").read_text(encoding="utf-8"))
    items = tuple(Item(entry["id"], int(entry["id"][1:]), entry["trait"], entry["key"] == "-",
                       bool(entry["dropped"]), entry["text"]) for entry in data["item"])
    if [i.number for i in items] != list(range(1, 45)) or {i.trait for i in items} != set(
            TRAITS) or tuple(i.id for i in items if i.dropped) != DROPPED:
        raise RuntimeError("ffsite/data/lmlpa_items.toml is damaged: it needs Q1-Q44 in "
                           "order, five traits and the four dropped items")
    scales = data["scale"]
    return Instrument(items, {t: scales[t]["name"] for t in TRAITS},
                      {t: tuple(scales[t]["labels"]) for t in TRAITS})


def trait_id(item_id: str, reversed_order: bool = False) -> str:
    """The scores-file trait id of an item's rating: bfi-Q6 (bfi-Q6-reversed)."""
    return f"bfi-{item_id}" + ("-reversed" if reversed_order else "")


def parse_trait_id(value: str) -> tuple[str, bool] | None:
    """(item id, reversed order) of a trait id written by trait_id, else None."""
    found = _TRAIT_ID.match(value)
    if found is None or instrument().item(found.group(1)) is None:
        return None
    return found.group(1), found.group(2) is not None


def scale_wording(trait: str) -> str:
    """The rater's labelled scale of a trait: '5 Very Open ... 1 Very Conservative'."""
    labels = instrument().labels[trait]
    return "; ".join(f"{SCALE[1] - n} {label}" for n, label in enumerate(labels))
