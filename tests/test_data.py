"""Data loaders, the leakage filter and user-file checks, on the real shared files where possible."""

import math

import datasets
import numpy as np
import pytest

from stsdemo import data, environment
from stsdemo.data import PairSet, filter_leakage, load_csv, load_training_data, write_pairs
from stsdemo.errors import InputError
from stsdemo.labels import NLI, STS, LabelScheme, sick_to_sts

needs_data = pytest.mark.skipif(
    environment.data_dir() is None, reason="no SentEval data folder (STSDEMO_DATA_DIR)"
)


# ---- the real SentEval files -------------------------------------------------------------------


@needs_data
@pytest.mark.parametrize("split, rows", [("train", 5749), ("dev", 1500), ("test", 1379)])
def test_stsb_row_counts_and_range(split, rows):
    pairs = data.load_stsb(split, source="local")
    assert len(pairs) == rows
    assert pairs.labels.min() == 0.0 and pairs.labels.max() == 5.0
    assert pairs.scheme == STS


@needs_data
def test_stsb_keeps_bare_quote_characters():
    # sts-train.csv line 1524 holds unbalanced-looking quotes; a CSV quote parser would merge lines.
    train = data.load_stsb("train", source="local")
    assert train.sentences1[1523] == 'a dog in a " superman " shirt sleeps on a blanket .'
    assert train.labels[1523] == 4.0


@needs_data
@pytest.mark.parametrize("split, rows", [("train", 4500), ("trial", 500), ("test", 4927)])
def test_sick_row_counts_and_mapped_range(split, rows):
    pairs = data.load_sick(split, source="local")
    assert len(pairs) == rows
    assert pairs.labels.min() == 0.0 and pairs.labels.max() == 5.0


@needs_data
def test_sick_relatedness_is_mapped_onto_sts_line():
    first = data.load_sick("train", source="local").select([0])
    assert first.sentences1 == [
        "A group of kids is playing in a yard and an old man is standing in the background"
    ]
    assert first.labels[0] == pytest.approx(4.375)  # relatedness 4.5 in the file
    assert sick_to_sts([1, 5, 3]).tolist() == [0.0, 5.0, 2.5]


@needs_data
@pytest.mark.parametrize("year, rows", [(12, 3108), (13, 1500), (14, 3750), (15, 3000), (16, 1186)])
def test_sts_year_counts_without_empty_gold(year, rows):
    subsets = data.load_sts_year(year, source="local")
    assert sum(len(s) for s in subsets.values()) == rows
    assert all(0.0 <= s.labels.min() and s.labels.max() <= 5.0 for s in subsets.values())


@needs_data
def test_sts15_subset_drops_unscored_lines():
    # STS.gs.answers-forums.txt has 2000 lines of which 375 carry a score.
    assert len(data.load_sts_year(15, source="local")["answers-forums"]) == 375
    assert "SMT" not in " ".join(data.load_sts_year(13, source="local"))  # STS13 ships without SMT


@needs_data
def test_snli_dev_and_test():
    nli = data.load_nli(source="local")
    assert len(nli) == 9842 + 9824
    assert nli.scheme == NLI
    counts = np.bincount(nli.labels.astype(int))
    assert counts.tolist() == [6515, 6454, 6697]  # contradiction, neutral, entailment in labels.*


@needs_data
def test_snli_train_is_not_local():
    with pytest.raises(InputError, match="source='hub'"):
        data.load_nli(splits=("train",), source="local")


@needs_data
def test_senteval_test_sets_order_and_sizes():
    sets = data.senteval_test_sets(source="local")
    assert list(sets) == ["STS12", "STS13", "STS14", "STS15", "STS16", "STSBenchmark", "SICKRelatedness"]
    assert [len(s) for s in sets.values()] == [3108, 1500, 3750, 3000, 1186, 1379, 4927]


# ---- leakage filter ----------------------------------------------------------------------------


def _pairs(rows, name="t"):
    return PairSet(name, [a for a, _ in rows], [b for _, b in rows], [1.0] * len(rows), STS)


def test_filter_leakage_on_hand_made_pairs():
    test = _pairs([("a cat sits .", "a cat is sitting ."), ("dogs run .", "a dog runs .")])
    train = _pairs(
        [
            ("a cat sits .", "a cat is sitting ."),  # same order: removed
            ("a dog runs .", "dogs run ."),  # swapped: removed
            ("a cat sits .", "a bird flies ."),  # one sentence shared: kept
            ("  a cat sits . ", "a cat is sitting .\n"),  # differs only by outer whitespace: removed
            ("a cat sits", "a cat is sitting ."),  # different text: kept
        ]
    )
    kept, removed = filter_leakage(train, [test])
    assert removed == 3
    assert list(zip(kept.sentences1, kept.sentences2)) == [
        ("a cat sits .", "a bird flies ."),
        ("a cat sits", "a cat is sitting ."),
    ]


@needs_data
def test_leakage_counts_on_real_data():
    report = data.leakage_report(source="local")
    assert report == {
        "STS-B train": {"before": 5749, "removed": 4076, "kept": 1673},
        "SICK train": {"before": 4500, "removed": 93, "kept": 4407},
    }
    tune = load_training_data("stsb+sick", source="local")
    assert len(tune) == 1673 + 4407
    assert tune.name == "stsb+sick (filtered, -4169)"


# ---- PairSet -----------------------------------------------------------------------------------


def test_pairset_select_and_concat():
    pairs = _pairs([("a", "b"), ("c", "d"), ("e", "f")])
    assert pairs.select([2, 0]).sentences1 == ["e", "a"]
    assert pairs.select(np.array([False, True, False])).sentences2 == ["d"]
    joined = PairSet.concat([pairs, pairs.select([1])], "j")
    assert len(joined) == 4 and joined.name == "j" and joined.sentences1[-1] == "c"
    nli = PairSet("n", ["x"], ["y"], [2.0], NLI)
    with pytest.raises(InputError, match="one label scheme"):
        PairSet.concat([pairs, nli], "mixed")
    with pytest.raises(ValueError, match="equally many"):
        PairSet("bad", ["a"], ["b", "c"], [1.0], STS)


# ---- user files --------------------------------------------------------------------------------


def _write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def test_load_csv_good_csv(tmp_path):
    text = 'id,sentence1,sentence2,score\n1,"A man, smiling.",A man smiles.,4.5\n2,A cat.,A car.,0\n'
    path = _write(tmp_path, "pairs.csv", text)
    pairs = load_csv(path, STS)
    assert pairs.sentences1 == ["A man, smiling.", "A cat."]
    assert pairs.labels.tolist() == [4.5, 0.0]
    assert pairs.name == "pairs.csv"
    # the separator comes from the header, so semicolons inside sentences do not confuse it
    path = _write(tmp_path, "semi.csv", "sentence1,sentence2,label\na; b; c; d,e; f; g,1\nh; i; j,k,2\n")
    assert load_csv(path, STS).sentences1 == ["a; b; c; d", "h; i; j"]


def test_load_csv_tsv_with_sick_columns_and_quotes(tmp_path):
    text = 'pair_ID\tsentence_A\tsentence_B\trelatedness_score\n1\tsays " hi\tsays hi\t3.6\n'
    pairs = load_csv(_write(tmp_path, "sick.tsv", text), STS)
    assert pairs.sentences1 == ['says " hi'] and pairs.labels.tolist() == [3.6]


def test_load_csv_category_names_and_explicit_columns(tmp_path):
    text = (
        "premise;hypothesis;gold\nA man sleeps.;A man is awake.;Contradiction\nA dog.;An animal.;ENTAILMENT\n"
    )
    pairs = load_csv(_write(tmp_path, "nli.csv", text), NLI, label="gold")
    assert pairs.labels.tolist() == [0.0, 2.0]
    custom = LabelScheme.custom("bad, fair, good", gap=0.5)
    text = "Text 1,Text 2,quality\nx,y,good\nx,z,0.5\n"
    pairs = load_csv(_write(tmp_path, "custom.csv", text), custom, "text 1", "TEXT 2", "quality")
    assert pairs.labels.tolist() == [1.0, 0.5]


def test_load_csv_without_labels_for_scoring(tmp_path):
    path = _write(tmp_path, "score.csv", "sentence1,sentence2\na,b\n")
    assert math.isnan(load_csv(path, STS, require_label=False).labels[0])
    with pytest.raises(InputError, match="label column"):
        load_csv(path, STS)


def test_write_pairs_round_trips(tmp_path):
    pairs = PairSet("p", ['say "hi", ok', "b"], ["c\td", "e"], [2.875, 0.1 + 0.2], STS)
    loaded = load_csv(write_pairs(pairs, tmp_path / "out.csv"), STS)
    assert loaded.sentences1 == pairs.sentences1 and loaded.sentences2 == pairs.sentences2
    assert loaded.labels.tolist() == pairs.labels.tolist()


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.csv", "", "is empty"),
        ("blank.csv", "\n\n", "is empty"),
        ("header.csv", "sentence1,sentence2,label\n", "no sentence pairs"),
        ("binary.csv", b"PK\x03\x04\x00\x00binary", "looks binary"),
        ("latin.csv", "sentence1,sentence2,label\ncaf\xe9,tea,1\n".encode("latin-1"), "not UTF-8"),
        (
            "cols.csv",
            "first,second,label\na,b,1\n",
            "columns found: 'first', 'second', 'label'.*sentence1/sentence2",
        ),
        ("nolabel.csv", "sentence1,sentence2,rating\na,b,1\n", "columns found.*relatedness_score"),
        (
            "nan.csv",
            "sentence1,sentence2,label\na,b,1\nc,d,nan\n",
            "row 2: label 'nan' is not a finite number",
        ),
        ("inf.csv", "sentence1,sentence2,label\na,b,inf\n", "row 1: label 'inf' is not a finite number"),
        (
            "word.csv",
            "sentence1,sentence2,label\na,b,high\n",
            r"row 1: label 'high' is not a number in \[0, 5\]",
        ),
        (
            "range.csv",
            "sentence1,sentence2,label\na,b,2\nc,d,5.5\n",
            r"row 2: label '5.5' is outside \[0, 5\]",
        ),
        ("nolab.csv", "sentence1,sentence2,label\na,b,\n", "row 1: the label is empty"),
        ("blanksent.csv", "sentence1,sentence2,label\na,b,1\n ,d,1\n", "row 2: empty sentence"),
        ("fields.csv", "sentence1,sentence2,label\na,b,1,extra\n", "row 1: 4 fields but the header has 3"),
    ],
)
def test_load_csv_rejects_bad_files(tmp_path, name, content, message):
    with pytest.raises(InputError, match=message):
        load_csv(_write(tmp_path, name, content), STS)


def test_load_csv_missing_file_and_row_limit(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_csv(tmp_path / "nope.csv", STS)
    rows = "".join(f"a{i},b{i},1\n" for i in range(4))
    with pytest.raises(InputError, match="more than 3 rows; the limit is 3"):
        load_csv(_write(tmp_path, "big.csv", "sentence1,sentence2,label\n" + rows), STS, max_rows=3)


def test_load_training_data_names_and_errors(tmp_path):
    with pytest.raises(InputError, match="unknown training data 'snli'.*stsb, sick, stsb\\+sick, nli"):
        load_training_data("snli")
    path = _write(tmp_path, "mine.csv", "sentence1,sentence2,label\na,b,entailment\n")
    with pytest.raises(InputError, match="needs a label scheme"):
        load_training_data(str(path))
    assert load_training_data(str(path), scheme=NLI).labels.tolist() == [2.0]
    with pytest.raises(
        InputError, match="no column 'gold' in the header; columns found: 'sentence1', 'sentence2'"
    ):
        load_csv(path, NLI, label="gold")
    with pytest.raises(InputError, match="uses the sts label scheme"):
        load_training_data("stsb", scheme=NLI)


# ---- where data comes from: folder vs hub ------------------------------------------------------


def test_local_source_without_folder_names_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("STSDEMO_DATA_DIR", str(tmp_path / "missing"))
    with pytest.raises(InputError, match="STSDEMO_DATA_DIR"):
        data.load_stsb("test", source="local")
    with pytest.raises(InputError, match="unknown data source 'web'"):
        data.load_stsb("test", source="web")


@pytest.fixture
def fake_hub(monkeypatch):
    """``datasets.load_dataset`` replaced by small in-memory sets with the hub's real columns."""
    nli_features = datasets.Features(
        {
            "premise": datasets.Value("string"),
            "hypothesis": datasets.Value("string"),
            "label": datasets.ClassLabel(names=["entailment", "neutral", "contradiction"]),
        }
    )
    tables = {
        "sentence-transformers/stsb": {"sentence1": ["A plane."], "sentence2": ["A jet."], "score": [0.76]},
        "mteb/sts13-sts": {"sentence1": ["x", "y"], "sentence2": ["z", "w"], "score": [4.2, 0.0]},
        "RobZamp/sick": {
            "sentence_A": ["Kids play."],
            "sentence_B": ["Boys play."],
            "relatedness_score": [3.0],
            "label": [1],
        },
    }
    calls = []

    def load_dataset(path, name=None, split=None, revision=None, **kwargs):
        calls.append((path, name, split, revision))
        if path == "sentence-transformers/all-nli":
            rows = {"premise": ["p1", "p2"], "hypothesis": ["h1", "h2"], "label": [0, 2]}
            return datasets.Dataset.from_dict(rows, features=nli_features)
        if path == "stanfordnlp/snli":  # -1: annotators did not agree, no gold label
            rows = {"premise": ["s1", "s2", "s3"], "hypothesis": ["t1", "t2", "t3"], "label": [1, -1, 2]}
            return datasets.Dataset.from_dict(rows, features=nli_features)
        if path not in tables:
            raise FileNotFoundError(f"Dataset {path} doesn't exist on the Hub")
        return datasets.Dataset.from_dict(tables[path])

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    monkeypatch.setattr(environment, "data_dir", lambda: None)  # "auto" must now go to the hub
    return calls


def test_hub_loaders(fake_hub):
    stsb = data.load_stsb("dev")
    assert stsb.labels.tolist() == [3.8] and stsb.sentences2 == ["A jet."]
    sick = data.load_sick("trial")
    assert sick.labels.tolist() == [2.5] and sick.sentences1 == ["Kids play."]
    sts13 = data.load_sts_year(13, source="hub")
    assert list(sts13) == ["all"] and sts13["all"].labels.tolist() == [4.2, 0.0]
    nli = data.load_nli(splits=("dev", "test"), source="hub")
    assert nli.labels.tolist() == [2.0, 0.0, 2.0, 0.0]  # entailment -> 2, contradiction -> 0
    assert fake_hub == [
        ("sentence-transformers/stsb", None, "validation", None),
        ("RobZamp/sick", None, "validation", "refs/convert/parquet"),
        ("mteb/sts13-sts", None, "test", None),
        ("sentence-transformers/all-nli", "pair-class", "dev", None),
        ("sentence-transformers/all-nli", "pair-class", "test", None),
    ]


def test_snli_from_the_hub_is_snli_with_gold_labels_only(fake_hub):
    """What reports SNLI figures (snli-train, snli-heldout, the NLI bench's test set) reads SNLI itself off this
    machine too, never the hub's SNLI + MultiNLI mix."""
    snli = data.load_snli("test", source="hub")
    assert snli.sentences1 == ["s1", "s3"] and snli.labels.tolist() == [
        1.0,
        0.0,
    ]  # neutral 1, contradiction 0
    assert fake_hub == [("stanfordnlp/snli", None, "test", None)]
    train, held_out = data.snli_dev_split(held_out=1, source="hub")
    assert len(train) == len(held_out) == 1 and fake_hub[-1] == ("stanfordnlp/snli", None, "validation", None)
    with pytest.raises(InputError, match="unknown SNLI split 'train'"):
        data.load_snli("train")


def test_hub_failure_is_an_input_error(fake_hub):
    with pytest.raises(InputError, match="could not load mteb/sts12-sts.*STSDEMO_DATA_DIR"):
        data.load_sts_year(12)


def test_an_evenly_spread_subset_keeps_the_first_and_the_last_pair():
    """The one rule for a subset (dev pairs, the Playground's cut data, bench's test slices): sets are often
    ordered by source, so a subset spreads over the whole set."""
    pairs = PairSet(
        "p", [f"a{i}" for i in range(10)], [f"b{i}" for i in range(10)], [i / 2 for i in range(10)], STS
    )
    assert pairs.spaced(4).sentences1 == ["a0", "a3", "a6", "a9"]
    assert pairs.spaced(10) is pairs and pairs.spaced(50) is pairs
