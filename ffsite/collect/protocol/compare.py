"""Comparable or apart: whether a run's numbers may stand beside the dataset's own.

A run is comparable when it has the protocol's judges (by the names the dataset's files
spell, whichever API model stands for each) and keeps every setting the protocol names
(`Protocol.settings`) at the protocol's value.  Its numbers are then filed under the
dataset itself and ranked with its models.  Any other run is kept apart, labelled by
how it differs:

- scores go to the dataset `<dataset>@<judges>[ (<settings>)]`, never pooled into the
  dataset's panel nor ranked with its models (the site reads such a dataset as its own,
  named "<name> [apart: ...]");
- a panel's votes keep their dataset, and their traits are filed as
  `<trait id>@<judge key>` (`ffsite.metrics.judges.judge_trait_id`), so no judge's
  votes are ever counted as another's whichever has more votes;
- a Feedback Forensics run's votes go under another judge key (the judge, and what
  differs), which the site keeps apart as it keeps any two judges' votes
  (`separate_judges`).

A trial (`limit`) is comparable but partial; validating it against the site says how much it
covers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ffsite.collect.protocol.spec import Judge, Protocol, judge_names

APART = "@"  # as ffsite.datasets.APART and ffsite.metrics.judges.SEPARATOR


@dataclass(frozen=True)
class Variant:
    """How a run relates to its protocol: `comparable`, and what differs (readable)."""

    comparable: bool
    judges: tuple[str, ...]  # the run's judges, by name
    other_judges: bool
    settings: tuple[str, ...]  # "temperature 0.7, not unset", ...

    @property
    def differs(self) -> list[str]:
        judges = [f"judges {', '.join(self.judges)}"] if self.other_judges else []
        return judges + list(self.settings)

    @property
    def label(self) -> str:
        """How the numbers are labelled when apart: the judges, then what else differs."""
        what = "+".join(sorted(self.judges))
        return what + (f" [{'; '.join(self.settings)}]" if self.settings else "")


def shown(value: Any) -> str:
    return "unset" if value is None else f"{value:g}" if isinstance(value, float) \
        else str(value)


def variant(protocol: Protocol, judges: Sequence[Judge], chosen: Mapping[str, Any]
            ) -> Variant:
    """The run's variant: its judges against the protocol's, and every protocol setting
    in `chosen` against the protocol's value."""
    names = judge_names(judges)
    other = sorted(names) != sorted(judge_names(protocol.judges))
    settings = tuple(f"{name} {shown(chosen[name])}, not {shown(default)}"
                     for name, default in protocol.settings.items()
                     if name in chosen and chosen[name] != default)
    return Variant(not other and not settings, names, other, settings)


def filed_under(protocol: Protocol, found: Variant) -> str:
    """The dataset a run's scores are filed under: the protocol's own, or apart."""
    return protocol.dataset if found.comparable else f"{protocol.dataset}{APART}{found.label}"


def summary_fields(protocol: Protocol, found: Variant) -> dict:
    """What a run's file summary says about its protocol and its variant (the site marks
    contributions from it; validating against the site checks it)."""
    return {"protocol": protocol.name, "protocol_version": protocol.version,
            "comparable": found.comparable,
            "differs": found.differs or None}
