"""The body text of a Markdown response and its structure, as a reader sees them.

`parse_body` renders a response the way a Markdown viewer would and keeps the text a
reader reads: one string per text block (paragraph, heading, list item, table row),
without Markdown syntax, code (fenced, indented, inline), raw HTML and web addresses.
Alongside it counts the structure (paragraphs, headings, lists, tables) and the emphasis
runs.  The parser is markdown-it-py with CommonMark plus GFM tables.

Speed: most responses are plain prose or use only block syntax.  A text with no Markdown
syntax at all is split on blank lines without parsing; a text with block syntax but no
inline syntax is parsed without the inline pass.  Both shortcuts give the same result as
the full parse (tests/test_communication.py checks this on crafted texts, and
benchmarks/bench_judges.py --check-shortcuts on all AlpacaEval responses).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

_FULL = MarkdownIt("commonmark").enable("table")
_BLOCKS_ONLY = MarkdownIt("commonmark").enable("table").disable("inline")

# Any line that could start a block other than a paragraph (list, heading, quote, fence,
# table delimiter, HTML, link definition, setext underline, thematic break, indented
# code).  Deliberately broad: a false alarm only costs a parse.
_BLOCK_SYNTAX = re.compile(r"^[ \t]*[-*+#>|<\[`~=_:0-9]|^(?: {4}|\t)", re.MULTILINE)
# Characters that can start inline syntax: code, emphasis, links, HTML, entities, escapes.
_INLINE_SYNTAX = re.compile(r"[`*_\[\]<&\\]")
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
# A line break inside a paragraph renders as one space (markdown-it strips the spaces
# before it and the indentation after it).
_SOFT_BREAK = re.compile(r" *\n[ \t]*")
_WEB_ADDRESS = re.compile(r"(?:https?://|www\.)", re.IGNORECASE)
# A bare web address, without the punctuation that usually follows one in prose.
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"]*[^\s<>\"'.,;:!?)\]}*_]", re.IGNORECASE)

_CODE_BLOCKS = frozenset({"fence", "code_block", "html_block"})


@dataclass(frozen=True)
class Body:
    text: str  # the text blocks joined by "\n"; no code, HTML or web addresses
    paragraphs: int  # body paragraphs (not headings, code, or items of tight lists)
    headings: int
    tables: int
    table_rows: int  # header row included
    lists: int  # top-level lists; a sublist is part of its parent
    list_items: int  # items at every level
    ordered_items: int  # items of numbered lists, every level
    bold: int  # unbroken bold runs
    italics: int  # unbroken italic runs
    web_links: int  # Markdown links to web addresses plus bare addresses in the text
    ends_in_code: bool  # the last block is code or HTML, not text


def parse_body(text: str, *, full_parse: bool = False) -> Body:
    """Render `text` (Markdown) to its body text and count its structure.

    `full_parse` skips the shortcuts (to check that they change nothing)."""
    if "\r" in text or "\0" in text:  # as markdown-it normalises its input
        text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    if full_parse or _INLINE_SYNTAX.search(text):
        return _from_tokens(_FULL.parse(text))
    if _BLOCK_SYNTAX.search(text):
        return _from_tokens(_BLOCKS_ONLY.parse(text))
    blocks = [_SOFT_BREAK.sub(" ", block.strip()) for block in _BLANK_LINES.split(text)]
    blocks = [block for block in blocks if block]
    counts = _no_counts()
    counts["paragraphs"] = len(blocks)
    return _finish(blocks, counts, ends_in_code=False)


def _from_tokens(tokens: list) -> Body:
    """Walk markdown-it's block tokens, rendering each inline token to plain text."""
    blocks: list[str] = []
    row: list[str] | None = None  # cells of the table row being read
    list_kinds: list[bool] = []  # stack: is each open list numbered?
    counts = _no_counts()
    ends_in_code = False
    for token in tokens:
        kind = token.type
        if kind == "inline":
            rendered = _render_inline(token, counts)
            if row is not None:
                row.append(rendered)
            elif rendered:
                blocks.append(rendered)
                ends_in_code = False
        elif kind == "paragraph_open":
            counts["paragraphs"] += not token.hidden  # hidden = item of a tight list
        elif kind == "heading_open":
            counts["headings"] += 1
        elif kind in ("bullet_list_open", "ordered_list_open"):
            counts["lists"] += not list_kinds
            list_kinds.append(kind == "ordered_list_open")
        elif kind in ("bullet_list_close", "ordered_list_close"):
            list_kinds.pop()
        elif kind == "list_item_open":
            counts["list_items"] += 1
            counts["ordered_items"] += list_kinds[-1]
        elif kind == "table_open":
            counts["tables"] += 1
        elif kind == "tr_open":
            counts["table_rows"] += 1
            row = []
        elif kind == "tr_close":
            cells = " ".join(cell for cell in row if cell)
            if cells:
                blocks.append(cells)
                ends_in_code = False
            row = None
        elif kind in _CODE_BLOCKS:
            ends_in_code = True
    return _finish(blocks, counts, ends_in_code)


def _render_inline(token, counts: dict[str, int]) -> str:
    """The visible text of one inline token; counts emphasis runs and web links."""
    if not token.children:  # parsed without the inline pass: no inline syntax inside
        return _SOFT_BREAK.sub(" ", token.content).strip()
    parts: list[str] = []
    previous = ""
    bold_depth = italic_depth = 0
    in_web_link = False
    for child in token.children:
        kind = child.type
        if kind == "text" and not child.content:
            continue  # left over from emphasis delimiters: it does not break a run
        if kind in ("text", "text_special"):
            # a link whose text is its own address is one reference, not two
            parts.append(_URL.sub("", child.content) if in_web_link else child.content)
        elif kind in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif kind == "strong_open":
            # "**a**__b__" is one unbroken run; "**a** **b**" are two
            counts["bold"] += bold_depth == 0 and previous != "strong_close"
            bold_depth += 1
        elif kind == "strong_close":
            bold_depth -= 1
        elif kind == "em_open":
            counts["italics"] += italic_depth == 0 and previous != "em_close"
            italic_depth += 1
        elif kind == "em_close":
            italic_depth -= 1
        elif kind == "link_open":
            href = child.attrGet("href") or ""
            in_web_link = child.markup != "autolink" and bool(_WEB_ADDRESS.match(href))
            counts["web_links"] += in_web_link
        elif kind == "link_close":
            in_web_link = False
        # code_inline, html_inline and image are not body text
        previous = kind
    return "".join(parts).strip()


def _no_counts() -> dict[str, int]:
    return dict(paragraphs=0, headings=0, tables=0, table_rows=0, lists=0, list_items=0,
                ordered_items=0, bold=0, italics=0, web_links=0)


def _finish(blocks: list[str], counts: dict[str, int], ends_in_code: bool) -> Body:
    text = "\n".join(blocks)
    if "www." in text or "://" in text:
        text, bare = _URL.subn("", text)
        counts["web_links"] += bare
    return Body(text=text, ends_in_code=ends_in_code, **counts)
