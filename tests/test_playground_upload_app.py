"""A visitor's own labelled pairs through the app's Playground: uploaded, played and exported (issue 33, item 3).

The file is written here: 240 pairs about animals, what they do and where, labelled by how much of the scene the
second sentence keeps (0 to 5). A bad file leaves the visitor's earlier pairs in place. The export runs on the
real embedded encoder (slow: it writes a full scorer and zips it)."""

import itertools
import zipfile

import numpy as np
import pytest

from stsdemo.app import playground_view
from stsdemo.app.playground_memory import PlaygroundMemory
from stsdemo.errors import InputError
from stsdemo.playground.config import UPLOADED, PlaygroundConfig

from test_playground_view import stand_in

ANIMALS = ("dog", "cat", "horse", "bird", "fox", "goat", "duck", "sheep")
ACTIONS = ("running", "sleeping", "eating", "playing", "resting", "jumping")
PLACES = ("park", "garden", "field", "yard", "barn")


def write_pairs(path, count: int = 240) -> None:
    """``count`` distinct pairs; the label is 5 when the second sentence keeps the scene, less per changed part."""
    rows = ["sentence1,sentence2,score"]
    for i, (animal, action, place) in enumerate(itertools.islice(itertools.product(ANIMALS, ACTIONS, PLACES), count)):
        changed = i % 4
        other = (ANIMALS[(ANIMALS.index(animal) + 1) % 8] if changed >= 1 else animal,
                 ACTIONS[(ACTIONS.index(action) + 1) % 6] if changed >= 2 else action,
                 PLACES[(PLACES.index(place) + 1) % 5] if changed >= 3 else place)
        rows.append(f"A {animal} is {action} in the {place}.,In the {other[2]} a {other[0]} is {other[1]}.,"
                    f"{5 - changed * 5 / 3:.2f}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def played(memory, session: str, **settings):
    values = {**PlaygroundConfig(seeds=2, steps=60, speed=30).to_dict(), "data": UPLOADED, **settings}
    return playground_view.advance(memory, session, values, "play")


def test_uploaded_pairs_play_like_a_built_in_set(tmp_path):
    memory = PlaygroundMemory(encoder_for=stand_in)
    write_pairs(tmp_path / "animals.csv")
    with pytest.raises(InputError, match="no pairs uploaded yet"):
        played(memory, "visitor-u")
    *_, said = playground_view.upload(memory, "visitor-u", str(tmp_path / "animals.csv"), "infer", "")
    assert "animals.csv" in said and "240 pairs, 50 held out as the report set, 190 in the pool" in said
    assert "inferred from the labels (0 to 5)" in said and "Embedded and cached" in said
    view = played(memory, "visitor-u")
    assert view.playing and "Step 30 of 60" in view.status and "animals.csv" in view.status
    run = memory.session("visitor-u").playground
    assert run.data.title == "animals.csv" and len(run.data.held_out) == 50 and run.read_by == "spearman"
    predictions = run.head(run.features.held_out).detach().numpy()
    assert predictions.shape[-1] == 50 and np.isfinite(predictions).all()

    (tmp_path / "one.csv").write_text("sentence1,sentence2,label\n" + "".join(
        f"a {i},b {i},3\n" for i in range(300)), encoding="utf-8")
    with pytest.raises(InputError, match="a head learns nothing from one class"):
        next(playground_view.upload(memory, "visitor-u", str(tmp_path / "one.csv"), "infer", ""))
    assert memory.session("visitor-u").uploaded.data.title == "animals.csv"     # nothing half-loaded
    with pytest.raises(InputError, match="no pairs uploaded yet"):
        played(memory, "visitor-other")                                           # one visitor's pairs are theirs


def test_the_upload_says_how_far_its_embedding_is(tmp_path):
    import threading

    from stsdemo.playground.embeddings import Encoder

    release = threading.Event()

    def slow(place, name, shown):
        encoder = stand_in(place, name, shown)
        return Encoder(encoder.name, encoder.fingerprint + ":slow-upload", encoder.max_length,
                       lambda sentences: (release.wait(5), encoder.encode(sentences))[1])

    write_pairs(tmp_path / "animals.csv", count=236)       # other sentences than the other tests': not cached
    memory = PlaygroundMemory(encoder_for=slow)
    said = playground_view.upload(memory, "visitor-p", str(tmp_path / "animals.csv"), "infer", "")
    first = next(said)
    assert "236 pairs" in first and "Embedding the sentences of your animals.csv" in first and "Pause" not in first
    assert "░" * 20 + " 0%" in first                          # the bar, empty: nothing embedded yet
    with pytest.raises(InputError, match="your last upload is still being embedded"):   # one at a time
        next(playground_view.upload(memory, "visitor-p", str(tmp_path / "animals.csv"), "infer", ""))
    release.set()
    *_, last = said
    assert "Embedded and cached" in last


def test_a_map_is_shown_for_comparison_on_uploaded_pairs():
    _, text = playground_view.payoff_view({**PlaygroundConfig().to_dict(), "data": UPLOADED})
    assert text.startswith("No map is recorded for uploaded pairs; this is the STS map")


@pytest.mark.slow
def test_a_run_on_uploaded_pairs_exports_as_a_scorer_with_its_card(tmp_path, monkeypatch):
    from stsdemo.model import SiameseRegressor

    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("STSDEMO_CACHE_DIR", str(tmp_path / "cache"))
    memory = PlaygroundMemory()
    write_pairs(tmp_path / "animals.csv")
    list(playground_view.upload(memory, "visitor-e", str(tmp_path / "animals.csv"), "infer", ""))
    played(memory, "visitor-e")
    zipped = playground_view.export_zip(memory, "visitor-e")
    with zipfile.ZipFile(zipped) as archive:
        archive.extractall(tmp_path / "scorer")
    run = memory.session("visitor-e").playground
    best = run.best_head(0)
    scorer = SiameseRegressor.load(tmp_path / "scorer")
    data = run.data
    pairs = range(5)
    got = scorer.predict([data.sentences[data.held_out.u[i]] for i in pairs],
                         [data.sentences[data.held_out.v[i]] for i in pairs])
    assert np.allclose(got, run.best_predictions[0, 0, list(pairs)], atol=1e-3)
    card = (tmp_path / "scorer" / "README.md").read_text(encoding="utf-8")
    assert "animals.csv" in card and f"step {best.step}" in card
