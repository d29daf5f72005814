"""Downloads: every published table, as CSV and JSON, grouped by the page that shows it.

The list itself is `published`, which every page is rendered with once all builders
have run (ffsite.site.output), so this builder may run at any point; so is `archive`, the
one zip of them all (ffsite.site.archive), whose README credits the datasets named here.
The page groups the list with `download_groups` at render time.  Over 500 tables
(several per model and per trait) made one flat table about 100,000 px long on a phone,
so the site-wide pages' tables are listed openly and each model's, trait's and
dataset's sit in a closed <details>, one line each until opened.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ffsite.datasets import SOURCES, dataset_name
from ffsite.site.context import SiteContext
from ffsite.site.output import Download
from ffsite.site.urls import DATASETS, MODELS, TRAITS, page_path

# Sections of per-item pages, in the order the page lists them.
FOLDERS = ((MODELS, "Models"), (TRAITS, "Traits"), (DATASETS, "Datasets"))


@dataclass(frozen=True)
class PageDownloads:
    """The tables one page shows, under `label`, the page's name."""

    page: str
    label: str
    items: list[Download]


@dataclass(frozen=True)
class Section:
    title: str
    pages: list[PageDownloads]
    folded: bool  # one closed <details> per page


def download_groups(published: Iterable[Download], nav: Iterable[tuple[str, str]]
                    ) -> list[Section]:
    """`published` grouped by page: the site-wide pages first (named as in the menu),
    then models, traits and datasets (named by the words their titles share)."""
    names = dict(nav)
    by_page: dict[str, list[Download]] = {}
    for download in sorted(published, key=lambda d: (d.page, d.title, d.name)):
        by_page.setdefault(download.page, []).append(download)
    folder_of = {page: page.split("/")[0] if "/" in page else "" for page in by_page}
    sections = [Section("Site-wide tables", [_grouped(page, downloads, names.get(page))
                                             for page, downloads in by_page.items()
                                             if folder_of[page] == ""], folded=False)]
    for folder, title in FOLDERS:
        pages = [_grouped(page, downloads) for page, downloads in by_page.items()
                 if folder_of[page] == folder]
        if pages:
            sections.append(Section(title, sorted(pages, key=lambda p: p.label.lower()),
                                    folded=True))
    known = {"", *(folder for folder, _ in FOLDERS)}
    others = [_grouped(page, downloads) for page, downloads in by_page.items()
              if folder_of[page] not in known]
    if others:
        sections.append(Section("Other pages", others, folded=True))
    return [section for section in sections if section.pages]


def _grouped(page: str, downloads: list[Download], label: str | None = None) -> PageDownloads:
    """A site-wide page is named as in the menu; a per-item page by the "<name>: " every
    title of its tables starts with (else by its file name)."""
    if label is None:
        shared = _shared_prefix([d.title for d in downloads])
        label = shared[:-2] if shared else page.rsplit("/", 1)[-1].removesuffix(".html")
    return PageDownloads(page, label, downloads)


def _shared_prefix(titles: list[str]) -> str:
    """The longest "<name>: " that starts every title ("" if there is none)."""
    first = titles[0]
    end = first.find(": ")
    while end >= 0:
        prefix = first[:end + 2]
        if all(t.startswith(prefix) for t in titles):
            # Longest: extend to the next ": " while every title still shares it.
            longer = first.find(": ", end + 2)
            if longer >= 0 and all(t.startswith(first[:longer + 2]) for t in titles):
                end = longer
                continue
            return prefix
        return ""
    return ""


def build(ctx: SiteContext) -> None:
    page = page_path("downloads")
    datasets = set(ctx.annotations.datasets) | set(ctx.scores.responses["dataset"].dropna())
    ctx.output.sources = [
        f"{dataset_name(d)}: " + ("{} <{}>, licence: {}".format(*SOURCES[d]) if d in SOURCES
                                  else "no source recorded") for d in sorted(datasets, key=str)]
    ctx.output.page(page, "downloads.html", section=page, download_groups=download_groups)
