"""A visitor's own labelled pairs as a Playground data set (stsdemo.playground.uploaded): the scale named or
inferred and said in one sentence, the report set held out the same way every time, a name that is the content's,
each bad file refused with one line, and a run of the core on an uploaded set (a stand-in encoder: no model)."""

import csv
import math
from dataclasses import replace

import numpy as np
import pytest

from stsdemo.errors import InputError
from stsdemo.labels import NLI
from stsdemo.playground import uploaded
from stsdemo.playground.compact import compact_bytes, quantize
from stsdemo.playground.config import SELECTION_MIN, PlaygroundConfig
from stsdemo.playground.embeddings import Encoder
from stsdemo.playground.run import Playground, Source, run_seeds
from stsdemo.playground.uploaded import (
    MAX_UPLOAD_PAIRS,
    MIN_TRAINING_PAIRS,
    MIN_UPLOAD_PAIRS,
    REPORT_MIN,
    load_uploaded_pairs,
    report_size,
)

NLI_NAMES = ("Entailment", "neutral", "CONTRADICTION")


def topic(i: int) -> int:
    return i % 7


def first(i: int) -> str:
    return f"a {i} sentence about topic {topic(i)}"


def second(i: int) -> str:
    return f"another {i} sentence about topic {topic(3 * i + 1)}"


def label_of(i: int) -> int:
    """0..5: how far apart the two sentences' topics are, something the stand-in vectors carry."""
    return min(abs(topic(i) - topic(3 * i + 1)), 5)


def write(tmp_path, name: str, labels, header=("sentence1", "sentence2", "label"), pairs=None):
    """A CSV of pair ``i`` (``first(i)``, ``second(i)``) with ``labels[i]``, or the rows ``pairs`` given."""
    path = tmp_path / name
    rows = pairs if pairs is not None else [(first(i), second(i), label) for i, label in enumerate(labels)]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def refused(path, scale=uploaded.INFER) -> str:
    with pytest.raises(InputError) as caught:
        load_uploaded_pairs(path, scale)
    message = str(caught.value)
    assert "\n" not in message and message, message
    return message


def all_labels(data) -> np.ndarray:
    return np.concatenate([data.train.labels, data.held_out.labels])


# ---- accepted files and their scales --------------------------------------------------------------------------


def test_a_0_to_5_file_is_inferred_on_its_own_numbers(tmp_path):
    loaded = load_uploaded_pairs(write(tmp_path, "mine.csv", [i % 6 for i in range(240)]))
    data = loaded.data
    assert data.scheme.categories == ("0", "1", "2", "3", "4", "5") and data.scheme.gap == 1
    assert sorted(set(all_labels(data).tolist())) == [0, 1, 2, 3, 4, 5]
    assert (
        "inferred" in loaded.scale_text
        and "(0 to 5)" in loaded.scale_text
        and "minus" not in loaded.scale_text
    )
    assert data.title == "mine.csv" and data.name.startswith("upload:") and loaded.notice == ""


def test_a_1_to_5_file_is_shifted_to_node_0_with_categories_named_by_its_numbers(tmp_path):
    loaded = load_uploaded_pairs(write(tmp_path, "likert.csv", [1 + i % 5 for i in range(240)]))
    assert loaded.data.scheme.categories == ("1", "2", "3", "4", "5")
    assert sorted(set(all_labels(loaded.data).tolist())) == [0, 1, 2, 3, 4]
    assert (
        "inferred" in loaded.scale_text and "(1 to 5)" in loaded.scale_text and "minus 1" in loaded.scale_text
    )
    fractions = load_uploaded_pairs(write(tmp_path, "half.csv", [0.5 + (i % 4) for i in range(240)]))
    assert fractions.data.scheme.categories == ("0", "1", "2", "3", "4")  # 0.5 .. 3.5: floor 0, ceil 4


def test_nli_category_names_name_their_scale_and_a_named_scale_parses_as_the_score_tab(tmp_path):
    path = write(tmp_path, "nli.csv", [NLI_NAMES[i % 3] for i in range(240)])
    loaded = load_uploaded_pairs(path)
    assert loaded.data.scheme == NLI and sorted(set(all_labels(loaded.data).tolist())) == [0, 1, 2]
    assert "named by the file" in loaded.scale_text
    custom = write(tmp_path, "custom.csv", [("bad", "fair", "good", "1.5")[i % 4] for i in range(240)])
    chosen = load_uploaded_pairs(custom, "bad, fair, good")
    assert chosen.data.scheme.categories == ("bad", "fair", "good")
    assert sorted(set(all_labels(chosen.data).tolist())) == [0, 1, 1.5, 2]
    assert "chosen" in chosen.scale_text and "bad, fair, good" in chosen.scale_text
    chosen = load_uploaded_pairs(write(tmp_path, "s.csv", [i % 6 for i in range(240)]), "sts")
    assert "chosen (sts)" in chosen.scale_text
    assert "is not a number" in refused(custom)  # names other than NLI's: name it


# ---- the split and the name -----------------------------------------------------------------------------------


def pair_set(data, part) -> set:
    return {
        frozenset((data.sentences[u], data.sentences[v])) for u, v in zip(part.u.tolist(), part.v.tolist())
    }


@pytest.mark.parametrize("pairs", [MIN_UPLOAD_PAIRS, 240, 1000])
def test_the_report_set_is_held_out_the_same_way_every_time(tmp_path, pairs):
    path = write(tmp_path, "mine.csv", [label_of(i) for i in range(pairs)])
    data, again = load_uploaded_pairs(path).data, load_uploaded_pairs(path).data
    assert len(data.held_out) == report_size(pairs) == max(REPORT_MIN, round(uploaded.REPORT_SHARE * pairs))
    assert len(data.train) == pairs - report_size(pairs)
    assert not pair_set(data, data.train) & pair_set(data, data.held_out)
    assert data.sentences == again.sentences and len(set(data.sentences)) == len(data.sentences)
    for part, other in ((data.train, again.train), (data.held_out, again.held_out)):
        assert np.array_equal(part.u, other.u) and np.array_equal(part.labels, other.labels)
    source = Source(compact_bytes(data, *quantize(stand_in_encoder().encode(data.sentences)), "stand-in"))
    with Playground(replace(PlaygroundConfig(), seeds=1, train_pairs=0), source, parts=1) as run:
        train, selection = run.sizes["training"], run.sizes["selection"]
    assert selection >= SELECTION_MIN and train >= MIN_TRAINING_PAIRS
    if pairs == MIN_UPLOAD_PAIRS:
        assert (train, selection) == (MIN_TRAINING_PAIRS, SELECTION_MIN)


def test_the_name_is_the_content_not_the_file_name(tmp_path):
    labels = [label_of(i) for i in range(240)]
    one, other = (
        load_uploaded_pairs(write(tmp_path, name, labels)).data for name in ("one.csv", "other.tsv.csv")
    )
    assert one.name == other.name and (one.title, other.title) == ("one.csv", "other.tsv.csv")
    changed = load_uploaded_pairs(write(tmp_path, "one.csv", [5 - label for label in labels])).data
    assert changed.name != one.name
    rescaled = load_uploaded_pairs(write(tmp_path, "one.csv", labels), "sts").data  # the same labels on STS
    assert rescaled.name != one.name and len(one.name) == len("upload:") + 12


# ---- bad files --------------------------------------------------------------------------------------------------


def mixed_labels(i: int):
    return "neutral" if i == 3 else i % 3


BAD_FILES = {
    "no label column": (
        dict(labels=range(240), header=("sentence1", "sentence2", "rating")),
        ["no label column", "columns found"],
    ),
    "an empty label": (
        dict(labels=["" if i == 6 else i % 6 for i in range(240)]),
        ["row 7", "label is empty"],
    ),
    "one class": (dict(labels=["3"] * 240), ["every label", "'3'", "two different labels"]),
    "one class of names": (dict(labels=["neutral"] * 240), ["every label", "'neutral'"]),
    "non-numeric": (
        dict(labels=["good" if i == 3 else i % 6 for i in range(240)]),
        ["row 4", "label 'good' is not a number", "name the scale", "bad, fair, good"],
    ),
    "mixed numbers and NLI names": (
        dict(labels=[mixed_labels(i) for i in range(240)]),
        ["row 4", "'neutral' is not a number"],
    ),
    "an infinite label": (
        dict(labels=["inf" if i == 9 else i % 6 for i in range(240)]),
        ["row 10", "not a finite number"],
    ),
    "a repeated pair": (
        dict(
            labels=None, pairs=[(first(i), second(i), i % 6) for i in range(240)] + [(first(5), second(5), 2)]
        ),
        ["rows 6 and 241", "same pair", "either order"],
    ),
    "a pair repeated in reverse": (
        dict(
            labels=None,
            pairs=[(first(i), second(i), i % 6) for i in range(240)] + [(second(17), first(17), 2)],
        ),
        ["rows 18 and 241", "either order"],
    ),
    "too many rows": (
        dict(labels=[i % 6 for i in range(MAX_UPLOAD_PAIRS + 1)]),
        [f"more than {MAX_UPLOAD_PAIRS} rows", f"limit is {MAX_UPLOAD_PAIRS}"],
    ),
    "too few pairs": (
        dict(labels=[i % 6 for i in range(MIN_UPLOAD_PAIRS - 1)]),
        [f"has {MIN_UPLOAD_PAIRS - 1} sentence pairs", f"at least {MIN_UPLOAD_PAIRS}"],
    ),
    "too many nodes": (
        dict(labels=[i % 101 for i in range(240)]),
        ["0 to 100", "101 whole numbers", "rescale", "name the scale"],
    ),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_each_bad_file_is_refused_with_one_line(tmp_path, case):
    written, words = BAD_FILES[case]
    message = refused(write(tmp_path, "bad.csv", **written))
    assert all(word in message for word in words), message


def test_a_bad_value_under_a_named_scale_and_a_large_file_are_refused(tmp_path, monkeypatch):
    path = write(tmp_path, "sts.csv", [i % 6 if i != 8 else 7 for i in range(240)])
    assert "row 9: label '7' is outside [0, 5]" in refused(path, "sts")
    assert "unknown label scheme 'likert'" in refused(path, "likert")
    monkeypatch.setattr(uploaded, "MAX_UPLOAD_BYTES", 1024)
    assert "the limit is 1.0 KB" in refused(path)


# ---- the core runs on an uploaded set ---------------------------------------------------------------------------


def stand_in_encoder(dim: int = 384) -> Encoder:
    """A fixed vector per topic plus a little of each sentence's own: what the labels (topic distance) need."""

    def encode(sentences):
        vectors = []
        for sentence in sentences:
            subject = int(sentence.rsplit(" ", 1)[1])
            own = np.random.default_rng(len(sentence) * 31 + sum(map(ord, sentence))).normal(size=dim)
            vectors.append(np.full(dim, float(subject)) + np.sin(np.arange(dim) * (subject + 1)) + 0.1 * own)
        return np.asarray(vectors, dtype=np.float32)

    return Encoder("stand-in", "stand-in:upload", 128, encode)


def test_a_run_of_the_core_on_an_uploaded_set_reports_finite_numbers(tmp_path):
    data = load_uploaded_pairs(write(tmp_path, "mine.csv", [label_of(i) for i in range(240)])).data
    source = Source(compact_bytes(data, *quantize(stand_in_encoder().encode(data.sentences)), "stand-in"))
    result = run_seeds(PlaygroundConfig(seeds=2, steps=50, train_pairs=0), source)
    for twin in ("buffer", "none"):
        for metric in ("spearman", "accuracy", "error"):
            assert math.isfinite(result["twins"][twin][metric]["mean"]), (twin, metric, result["twins"])
            assert math.isfinite(result["stopped_at_best"]["twins"][twin][metric]["mean"])
