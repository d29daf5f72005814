"""Texts kept as one Arrow array (ffsite.datasets.texts.TextsById) read like the dict of
strings they replace: the same keys in the same order, the last text of a repeated id,
lengths in characters, and texts added by contributors replacing their id's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ffsite.datasets.texts import TextsById, read_texts, text_lengths, write_texts

IDS = ["b", "a", "b", "é"]
TEXTS = ["first b", "an a", "second b", "naïve ☃"]


def test_reads_as_the_dict_it_replaces():
    texts = TextsById(IDS, TEXTS)
    expected = dict(zip(IDS, TEXTS, strict=True))
    assert dict(texts) == expected and list(texts) == list(expected)  # order kept too
    assert len(texts) == 3 and "a" in texts and "c" not in texts
    assert texts["b"] == "second b" and texts.get("c") is None
    same = TextsById(pd.Series(IDS), pd.Series(TEXTS, dtype="str"))  # a frame's columns
    assert dict(same) == expected


def test_lengths_count_characters_and_zero_for_a_missing_text():
    texts = TextsById(IDS, TEXTS)
    keys = np.array(["é", "b", "zz", "a"], dtype=object)
    assert texts.lengths(keys).tolist() == [7, 8, 0, 4]  # counted by hand
    assert text_lengths(texts, keys).tolist() == text_lengths(dict(texts), keys).tolist()
    assert TextsById(["x"], [None]).lengths(["x"]).tolist() == [0]


def test_more_texts_replace_their_ids_and_keep_the_rest():
    texts = TextsById(IDS, TEXTS).plus(["a", "new"], ["contributed a", "n"])
    assert dict(texts) == {"b": "second b", "a": "contributed a", "é": "naïve ☃", "new": "n"}
    assert texts.lengths(["a", "new"]).tolist() == [13, 1]


def test_a_texts_file_reads_back_its_prompts_and_responses(tmp_path):
    write_texts(tmp_path, "made-up", {"p1": "Prompt?"}, {"r2": "two", "r1": "one"})
    prompts, responses = read_texts(tmp_path, "made-up")
    assert dict(prompts) == {"p1": "Prompt?"}
    assert dict(responses) == {"r1": "one", "r2": "two"}
