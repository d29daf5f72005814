"""Where each page lives and how one page links to another.

A page's path is relative to the site's top ("ratings.html", "models/m1.html"); a link
climbs from the linking page's folder back to the top first ("../traits/t.html"), so
the site works under any subpath and from file://.  Models and datasets get a page each,
named by a slug of their name; traits by a slug of their wording ("is more verbose" ->
traits/is-more-verbose.html), readable and the same in every build of the same traits.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from ffsite._names import safe_name
from ffsite.errors import FfsiteError

MODELS, DATASETS, TRAITS = "models", "datasets", "traits"  # folders of per-item pages


def page_path(name: str, slug: str | None = None) -> str:
    """A page's path from the site's top: page_path("ratings") is "ratings.html",
    page_path(MODELS, "m1") is "models/m1.html"."""
    return f"{name}.html" if slug is None else f"{name}/{slug}.html"


EIGENBENCH = "eigenbench"  # the folder of EigenBench's constitution pages


def constitution_path(constitution: str) -> str:
    """The path of an EigenBench constitution's page."""
    return page_path(EIGENBENCH, safe_name(constitution))


def root(page: str) -> str:
    """The way back to the site's top from `page` ("" or "../")."""
    return "../" * page.count("/")


def link(source: str, target: str) -> str:
    """The href on page `source` that leads to `target` (a page or file path)."""
    return root(source) + target


@dataclass(frozen=True)
class Slugs:
    """The page name of every model, dataset and trait (by trait id) that has a page."""

    models: dict[str, str]
    datasets: dict[str, str]
    traits: dict[str, str]
    # The page names trait pages had before they were named by their wording (a slug of
    # the trait id, often a hash): old name -> trait id, for redirect pages.
    old_traits: dict[str, str] = field(default_factory=dict)

    @classmethod
    def create(cls, traits: Mapping[str, str] | Iterable[str], models: Iterable[str],
               datasets: Iterable[str]) -> Slugs:
        """`traits`: {trait id: wording or label}; plain ids are named by themselves."""
        labels = dict(traits) if isinstance(traits, Mapping) else {t: t for t in traits}
        named = trait_slugs(labels)
        taken = {slug.lower() for slug in named.values()}
        old = {safe_name(str(t)): str(t) for t in labels}
        return cls(traits=named, models=unique_slugs(models, "model"),
                   datasets=unique_slugs(datasets, "dataset"),
                   old_traits={name: t for name, t in sorted(old.items())
                               if name.lower() not in taken})

    def page(self, folder: str, name: str) -> str | None:
        """The path of `name`'s page in `folder` (MODELS, ...); None if it has none."""
        slug = getattr(self, folder).get(name)
        return None if slug is None else page_path(folder, slug)

    def pages(self, folder: str) -> dict[str, str]:
        """{name: path of its page} for every page in `folder`."""
        return {name: page_path(folder, slug) for name, slug in getattr(self, folder).items()}


def unique_slugs(names: Iterable[str], what: str) -> dict[str, str]:
    """{name: safe_name(name)}; stop if two names would share a page."""
    names = [str(name) for name in names]
    slugs = [safe_name(name) for name in names]
    folded = pd.Series([slug.lower() for slug in slugs])
    if folded.duplicated().any():
        clash = names[int(folded.duplicated().to_numpy().argmax())]
        raise FfsiteError(f"{what} '{clash}' gives the same page name as another {what} "
                          "(names differing only in case or punctuation); rename one")
    return dict(zip(names, slugs, strict=True))


def file_names(names: Iterable[str]) -> dict[str, str]:
    """{name: file name}, distinct even on a file system that ignores case: names whose
    safe names clash that way (metadata columns "Topic" and "topic") each add a hash of
    the name itself, so who gets which never depends on order."""
    names = [str(name) for name in names]
    safe = {name: safe_name(name) for name in names}
    folded = pd.Series([value.lower() for value in safe.values()], dtype=object)
    clashing = set(folded[folded.duplicated(keep=False)])
    return {name: (f"{value}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"
                   if value.lower() in clashing else value) for name, value in safe.items()}


SLUG_LENGTH = 60  # characters of wording kept in a trait's page name


def wording_slug(text: str) -> str:
    """Lowercase ASCII words joined by '-': "Is <b>more</b> verbose!" -> "is-b-more-b-
    verbose"; accents are dropped ("é" -> "e"); "" when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > SLUG_LENGTH:  # cut at a word boundary where there is one
        cut = slug[:SLUG_LENGTH]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return slug


def trait_slugs(labels: Mapping[str, str]) -> dict[str, str]:
    """{trait id: page name from its wording}, unique ignoring case.

    Traits whose wordings give the same slug each add a slug of their id (ids are
    unique), so who gets which name never depends on the order the traits come in;
    a wording with nothing readable in it (all symbols, another script) is named
    "trait-" plus a hash of its id.  Whatever is left clashing gets the hash too.
    """
    def hashed(trait_id: str) -> str:
        return hashlib.sha256(trait_id.encode("utf-8")).hexdigest()[:8]

    base = {t: wording_slug(label) or f"trait-{hashed(t)}" for t, label in labels.items()}
    counts = pd.Series(list(base.values()), dtype=object).value_counts()
    named = {}
    for trait_id, slug in base.items():
        if counts.get(slug, 0) > 1:
            slug = f"{slug}-{wording_slug(trait_id) or hashed(trait_id)}"
        named[trait_id] = slug
    folded = pd.Series([slug.lower() for slug in named.values()], dtype=object)
    if folded.duplicated(keep=False).any():
        clashing = set(folded[folded.duplicated(keep=False)])
        named = {t: f"{slug}-{hashed(t)}" if slug in clashing else slug
                 for t, slug in named.items()}
    return named
