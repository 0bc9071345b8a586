"""The Siamese regressor: pooling, head shapes, save/load round trip, sentence-transformers compatibility."""

import json
import pickle

import numpy as np
import pytest
import torch

from stsdemo.errors import InputError
from stsdemo.labels import NLI
from stsdemo.model import SiameseRegressor
from stsdemo.model_source import resolve_model

PAIRS = (
    ["a man is playing a guitar.", "the cat sleeps on the sofa."],
    ["a person plays the guitar.", "stocks fell sharply on monday."],
)


def test_mean_pooling_ignores_padding(embedded_model):
    short = "a dog runs."
    alone = embedded_model.encode([short])
    padded = embedded_model.encode(
        [short, "a much longer sentence that forces padding of the short one in the batch"]
    )
    assert np.allclose(alone[0], padded[0], atol=1e-5)


def test_batches_hold_a_token_budget_or_a_sentence_count():
    from stsdemo.model import batches_of

    lengths = np.array([90, 40, 40, 12, 12, 12, 12, 12, 3])
    by_tokens = batches_of(lengths, None, 100)
    assert [(b.start, b.stop) for b in by_tokens] == [
        (0, 1),
        (1, 3),
        (3, 11),
    ]  # 90, 2 x 40, then 8 of 12 tokens
    assert all(lengths[b][0] * len(lengths[b]) <= 100 for b in by_tokens)
    assert [(b.start, b.stop) for b in batches_of(lengths, 4, 100)] == [(0, 4), (4, 8), (8, 12)]
    assert [(b.start, b.stop) for b in batches_of(np.array([300]), None, 100)] == [
        (0, 1)
    ]  # one, however long


def test_the_batching_does_not_change_the_embeddings(embedded_model):
    sentences = [
        "a dog runs.",
        "two men talk about the weather in the park.",
        "hi",
        "a woman plays the flute.",
        "a puppy is running fast across the wide green field today",
        "rain",
    ]
    by_count = embedded_model.encode(sentences, batch_size=2)
    assert np.allclose(embedded_model.encode(sentences, batch_tokens=24), by_count, atol=1e-5)
    assert np.allclose(embedded_model.encode(sentences), by_count, atol=1e-5)


def test_one_encoder_pass_for_both_sides_matches_two(embedded_model):
    # sides of different lengths, so stacking has to pad the shorter one
    first = embedded_model.tokenize(["a dog runs.", "two men talk."])
    second = embedded_model.tokenize(["a puppy is running fast across the wide green field today", "hi"])
    embedded_model.eval()
    with torch.no_grad():
        output = embedded_model(first, second)
        u, v = embedded_model.embed(first), embedded_model.embed(second)
    assert output.u.shape == output.v.shape == (2, 384)
    assert torch.allclose(output.u, u, atol=1e-5) and torch.allclose(output.v, v, atol=1e-5)


def test_head_shapes_for_each_feature_set(embedded_model):
    batch = [embedded_model.tokenize(s) for s in PAIRS]
    for features, width in (("u,v,|u-v|", 3), ("u,v", 2), ("|u-v|", 1)):
        model = SiameseRegressor(embedded_model.encoder, embedded_model.tokenizer, features=features)
        assert model.head.in_features == width * 384
        assert model(*batch).prediction.shape == (2,)
    classifier = SiameseRegressor(
        embedded_model.encoder, embedded_model.tokenizer, classification=True, scheme=NLI
    )
    assert classifier(*batch).prediction.shape == (2, 3)
    scores = classifier.predict(*PAIRS)
    assert np.all((scores >= 0) & (scores <= 2))


def test_cosine_ranks_paraphrase_above_unrelated(embedded_model):
    u = embedded_model.encode(PAIRS[0])
    v = embedded_model.encode(PAIRS[1])
    cos = (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
    assert cos[0] > 0.6 > 0.2 > cos[1]


def test_save_load_round_trip_and_sentence_transformers(embedded_model, tmp_path):
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = SiameseRegressor(
        embedded_model.encoder, embedded_model.tokenizer, scheme=NLI, base_model="all-MiniLM-L6-v2"
    )
    folder = model.save(tmp_path / "run")
    assert not list(folder.glob("*.bin")) and (folder / "head.safetensors").is_file()
    loaded = SiameseRegressor.load(str(folder))
    assert loaded.scheme == NLI and loaded.features == model.features
    assert np.allclose(loaded.predict(*PAIRS), model.predict(*PAIRS), atol=1e-5)
    st_model = SentenceTransformer(str(folder), device="cpu")
    assert np.allclose(st_model.encode(PAIRS[0]), model.encode(PAIRS[0]), atol=1e-5)
    st_model.save(str(tmp_path / "resaved"))  # the module types sentence-transformers writes today are ours
    types = [
        [module["type"] for module in json.loads((path / "modules.json").read_text())]
        for path in (folder, tmp_path / "resaved")
    ]
    assert types[0] == types[1], types


def test_head_only_folder_is_small_and_loads_the_base_encoder(embedded_model, tmp_path):
    model = SiameseRegressor(embedded_model.encoder, embedded_model.tokenizer, base_model="all-MiniLM-L6-v2")
    folder = model.save(tmp_path / "head", head_only=True)
    assert sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) < 20_000
    assert np.allclose(SiameseRegressor.load(str(folder)).predict(*PAIRS), model.predict(*PAIRS), atol=1e-5)


def test_saving_over_a_run_replaces_it_whole(embedded_model, tmp_path):
    model = SiameseRegressor(embedded_model.encoder, embedded_model.tokenizer, base_model="all-MiniLM-L6-v2")
    folder = model.save(tmp_path / "run", head_only=True)
    torch.nn.init.constant_(model.head.bias, 4.0)
    model.save(folder, head_only=True)
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no staging or retired folders left
    assert SiameseRegressor.load(str(folder)).head.bias.item() == 4.0


def test_damaged_and_pickled_checkpoints_are_refused(embedded_model, tmp_path):
    model = SiameseRegressor(embedded_model.encoder, embedded_model.tokenizer, base_model="all-MiniLM-L6-v2")
    folder = model.save(tmp_path / "run", head_only=True)
    head = folder / "head.safetensors"
    head.write_bytes(head.read_bytes()[:40])
    with pytest.raises(InputError, match="missing or damaged"):
        SiameseRegressor.load(str(folder))
    head.write_bytes(pickle.dumps({"weight": torch.zeros(1, 1152)}))
    with pytest.raises(InputError, match="missing or damaged"):
        SiameseRegressor.load(str(folder))
    pickled = tmp_path / "pickled"
    pickled.mkdir()
    (pickled / "config.json").write_text(json.dumps(embedded_model.encoder.config.to_dict()))
    torch.save(embedded_model.encoder.state_dict(), pickled / "pytorch_model.bin")
    with pytest.raises(InputError, match="only safetensors"):
        SiameseRegressor.load(str(pickled))


def test_local_encoder_directory_loads_like_a_hub_model(embedded_model, tmp_path):
    """Any Hugging Face encoder folder works (the same path BERT, RoBERTa, Jina or Nomic take online)."""
    folder = tmp_path / "plain-encoder"
    embedded_model.encoder.save_pretrained(folder)
    embedded_model.tokenizer.save_pretrained(folder)
    fresh = SiameseRegressor.from_encoder(str(folder))
    assert np.allclose(fresh.encode(PAIRS[0]), embedded_model.encode(PAIRS[0]), atol=1e-5)


@pytest.mark.parametrize(
    "name, roots, message",
    [
        ("../../etc", "app", "outside the allowed folders"),
        ("/etc", "app", "outside the allowed folders"),
        ("/etc", None, "is not a model: it has no config.json"),  # a local user owns every path
        ("/no/such/folder", None, "does not exist"),
        ("no-such-org/no-such-model-xyz", None, "could not load model"),
    ],
)
def test_bad_model_names(name, roots, message, monkeypatch):
    from stsdemo import environment

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError, match=message):
        SiameseRegressor.from_encoder(
            name, allowed_roots=environment.model_roots() if roots == "app" else None
        )


def test_cosine_target_starts_spanning_the_nodes_and_trains_a_b_and_encoder(embedded_model):
    model = SiameseRegressor(embedded_model.encoder, embedded_model.tokenizer, target="cosine", scheme=NLI)
    assert (model.head.scale.item(), model.head.bias.item()) == (2.0, 0.0)  # cos 0..1 -> nodes 0..2
    model.train()
    output = model(*[model.tokenize(s) for s in PAIRS])
    cosine = torch.nn.functional.cosine_similarity(output.u, output.v, dim=-1)
    assert torch.allclose(output.prediction, 2.0 * cosine, atol=1e-5)
    from stsdemo.losses.smooth_k2 import SmoothK2Loss

    SmoothK2Loss(k=2.0, x0=0.0, scheme=NLI)(output, torch.tensor([0.0, 2.0])).backward()
    assert model.head.scale.grad.abs() > 0 and model.head.bias.grad.abs() > 0
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in model.encoder.parameters())
    model.zero_grad(set_to_none=True)


def test_cosine_target_is_clamped_and_counts_in_the_buffer(embedded_model):
    from stsdemo.losses.smooth_k2 import SmoothK2Loss
    from stsdemo.model import SiameseOutput

    model = SiameseRegressor(embedded_model.encoder, embedded_model.tokenizer, target="cosine")
    u = torch.tensor([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    v = torch.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])  # cos 1, 0.707, 0
    with torch.no_grad():
        model.head.scale.fill_(6.0)  # 6, 4.24, 0: the first lies past node 5
        prediction = model.head(u, v)
    loss = SmoothK2Loss(k=2.0, x0=0.25)
    output = SiameseOutput(prediction, u, v)
    labels = torch.tensor([5.0, 4.0, 1.0])
    assert loss.inside_buffer(output, labels).tolist() == [True, True, False]  # 6 clamps to 5; |4.24-4| < .25
    assert loss(output, labels).item() == pytest.approx(2.0 * 0.75**2 / 3, rel=1e-4)


@pytest.mark.parametrize("target", ["head", "cosine"])
def test_save_load_round_trip_of_each_target(embedded_model, tmp_path, target):
    from sentence_transformers import SentenceTransformer

    model = SiameseRegressor(embedded_model.encoder, embedded_model.tokenizer, target=target)
    with torch.no_grad():
        for param in model.head.parameters():
            param.add_(0.37)
    expected = model.predict(*PAIRS)
    folder = model.save(tmp_path / target)
    loaded = SiameseRegressor.load(str(folder))
    assert loaded.target == target and np.allclose(loaded.predict(*PAIRS), expected, atol=1e-5)
    assert not list(folder.glob("*.bin")) and not list(folder.glob("*.pt"))  # no pickle
    assert SentenceTransformer(str(folder), device="cpu").encode(["a dog"]).shape == (1, 384)


def test_fp16_and_lora_saves_load_back_and_export_for_sentence_transformers(embedded_model, tmp_path):
    from sentence_transformers import SentenceTransformer

    fresh = SiameseRegressor.from_encoder(None, target="cosine")
    half = SiameseRegressor.load(str(fresh.save(tmp_path / "half", fp16=True)))
    assert next(half.encoder.parameters()).dtype == torch.float32
    assert np.allclose(half.predict(*PAIRS), fresh.predict(*PAIRS), atol=2e-3)
    fresh.add_lora(4)
    with torch.no_grad():
        for name, param in fresh.encoder.named_parameters():
            if "lora_B" in name:
                param.normal_(0, 0.05)  # a trained adapter: B is no longer zero
    expected = fresh.predict(*PAIRS)
    adapter = fresh.save(tmp_path / "lora")
    assert (adapter / "adapter_config.json").is_file() and not (adapter / "model.safetensors").exists()
    assert not (adapter / "README.md").exists()  # no placeholder model card, no machine path in the config
    assert (
        json.loads((adapter / "adapter_config.json").read_text())["base_model_name_or_path"]
        == fresh.base_model
    )
    assert np.allclose(SiameseRegressor.load(str(adapter)).predict(*PAIRS), expected, atol=1e-4)
    exported = fresh.export(tmp_path / "export")
    st = SentenceTransformer(str(exported), device="cpu").encode(PAIRS[0] + PAIRS[1])
    ours = SiameseRegressor.load(str(exported)).encode(PAIRS[0] + PAIRS[1])
    assert np.allclose(st, ours, atol=1e-4)


def test_compact_saves_only_over_the_base_weights(tmp_path):
    """Head-only or adapter-only saves leave the encoder out; they must not after a warm start from
    fine-tuned (full or merged) weights, which would load back as the base encoder."""
    tuned = SiameseRegressor.from_encoder(None, target="cosine")
    with torch.no_grad():
        next(tuned.encoder.parameters()).add_(0.01)
    expected = tuned.predict(*PAIRS)
    full = SiameseRegressor.load(str(tuned.save(tmp_path / "full")))
    again = full.save(tmp_path / "head-only-after-full", head_only=True)
    assert json.loads((again / "stsdemo.json").read_text())["encoder_weights"] == "full"
    assert np.allclose(SiameseRegressor.load(str(again)).predict(*PAIRS), expected, atol=1e-5)
    full.add_lora(4)  # an adapter over changed weights saves merged
    merged = full.save(tmp_path / "lora-after-full")
    assert json.loads((merged / "stsdemo.json").read_text())["encoder_weights"] == "full"

    adapted = SiameseRegressor.from_encoder(None, target="cosine")
    adapted.add_lora(4)
    with torch.no_grad():
        for name, param in adapted.encoder.named_parameters():
            if "lora_B" in name:
                param.normal_(0, 0.05)
    folder = adapted.save(tmp_path / "lora")
    kept = SiameseRegressor.load(str(folder), keep_adapter=True)
    assert kept.lora and not SiameseRegressor.load(str(folder)).lora
    resaved = kept.save(tmp_path / "lora-again", head_only=True)
    assert json.loads((resaved / "stsdemo.json").read_text())["encoder_weights"] == "lora"
    assert np.allclose(
        SiameseRegressor.load(str(resaved)).predict(*PAIRS), adapted.predict(*PAIRS), atol=1e-4
    )


def test_classification_needs_the_head_target(embedded_model):
    with pytest.raises(InputError, match="needs target 'head'"):
        SiameseRegressor(
            embedded_model.encoder, embedded_model.tokenizer, classification=True, target="cosine"
        )


def test_remote_code_only_for_allow_listed_models(monkeypatch):
    monkeypatch.setenv("STSDEMO_TRUST_REMOTE_CODE", "jinaai/jina-embeddings-v2-base-en")
    assert resolve_model("jinaai/jina-embeddings-v2-base-en") == ("jinaai/jina-embeddings-v2-base-en", True)
    assert resolve_model("nomic-ai/nomic-embed-text-v1.5") == ("nomic-ai/nomic-embed-text-v1.5", False)
