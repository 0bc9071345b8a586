"""The server's work caps (issue 32): each cap refusing with the setting named and its bound (batch, length, steps,
epochs, data size, evaluation, hub model size, one place per visitor), a link clamped with a notice, and the
environment variables that open them. No timing is measured: the estimates are arithmetic on a declared machine,
handed to the code under test as a :class:`stsdemo.serving.budget.Host` (and the hub's answers as a
:class:`stsdemo.model_source.HubAnswers`), never patched into it."""

from dataclasses import replace
from types import SimpleNamespace

import pytest

from stsdemo.app import links, model_cache
from stsdemo.app.finetune import form
from stsdemo.config import TrainConfig, describe
from stsdemo.errors import InputError
from stsdemo.serving import budget, run_cost
from stsdemo.serving.slots import JobLine, client_address, visitor_of

GB = 1024**3
FREE_SPACE = run_cost.Machine(16 * GB, 2, False)  # a free Hugging Face Space: 2 CPU cores, 16 GB
PRIVATE_GPU = run_cost.Machine(80 * GB, 1, True)
FREE_HOST = budget.Host(machine=lambda: FREE_SPACE)
PRIVATE_HOST = budget.Host(machine=lambda: PRIVATE_GPU)
BUDGET_VARIABLES = (
    "STSDEMO_TRAIN_MEMORY_SHARE",
    "STSDEMO_TRAIN_MINUTES",
    "STSDEMO_MODEL_MILLIONS",
    "STSDEMO_HUB_MODELS",
    "STSDEMO_PROXY_HOPS",
    "STSDEMO_MAX_TRAINING",
    "SPACE_ID",
)


@pytest.fixture(autouse=True)
def operator_defaults(monkeypatch):
    """Every test here starts from the budget's defaults, whatever the environment running the tests sets; each
    hands the code a free Space (:data:`FREE_HOST`) unless it says otherwise."""
    for name in BUDGET_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def form_values(**settings) -> dict:
    """The Fine-tune form at its CPU defaults (the embedded encoder, STS-B + SICK-R) with ``settings``."""
    return {**form.form_defaults(), "model": model_cache.DEFAULT_CHOICE, **settings}


def refusal_of(host: budget.Host = FREE_HOST, **settings) -> str:
    with pytest.raises(InputError) as refused:
        form.build_config("caps", "run-caps", form_values(**settings), host=host)
    return str(refused.value)


def fits(host: budget.Host = FREE_HOST, **settings) -> bool:
    try:
        form.build_config("caps", "run-caps", form_values(**settings), host=host)
    except InputError:
        return False
    return True


# ---- the run's caps ------------------------------------------------------------------------------------------


def test_the_default_run_and_the_paper_settings_fit_a_free_space():
    assert fits()
    assert fits(
        max_length=256, max_steps=0, eval_every=100, max_dev_pairs=0
    )  # one epoch at the paper's length


@pytest.mark.parametrize(
    "settings, named, which",
    [
        (dict(batch_size=4096), "batch size 4,096", "largest allowed batch size"),
        (dict(batch_size=1024), "batch size 1,024", "largest allowed batch size"),
        (dict(max_length=512, batch_size=64), "batch size 64", "largest allowed batch size"),
        (dict(max_length=512), "max length 512", "largest allowed max length"),
        (dict(max_steps=36_000, epochs=100), "max steps 36,000", "largest allowed max steps"),
        (dict(max_steps=0, epochs=100), "epochs 100", "largest allowed epochs"),
        (dict(max_steps=2000, eval_every=1, max_dev_pairs=0), "eval every 1", "smallest allowed eval every"),
        (
            dict(max_dev_pairs=1500, eval_every=2, max_steps=300),
            "eval every 2",
            "smallest allowed eval every",
        ),
    ],
)
def test_a_run_over_the_budget_is_refused_naming_the_setting_and_its_bound(settings, named, which):
    message = refusal_of(**settings)
    assert message.startswith(named) and which in message, message
    assert "\n" not in message and "over the server's budget" in message
    name = next(n for n in budget.NAMING_ORDER if which.endswith(describe(n)["title"]))
    bound = float(message.split(which + " is ")[1].split(" ")[0].replace(",", ""))
    bound = int(bound) if describe(name)["integer"] else bound
    # the bound is real: the run fits with it, and not one step further
    assert fits(**{**settings, name: bound})
    step = 1 if describe(name)["integer"] else 0.01
    assert not fits(**{**settings, name: round(bound - step if "smallest" in which else bound + step, 2)})


def test_the_data_size_is_capped_by_the_time_it_takes(tmp_path, monkeypatch):
    monkeypatch.setenv("STSDEMO_TRAIN_MINUTES", "0.5")
    upload = tmp_path / "pairs.csv"
    upload.write_text(
        "sentence1,sentence2,label\n"
        + "".join(
            f"A man number {i} plays a guitar on the stage.,Someone plays music for the crowd {i}.,{i % 6}\n"
            for i in range(3000)
        ),
        encoding="utf-8",
    )
    values = dict(
        data="Upload CSV / TSV", upload=str(upload), max_steps=0, eval_every=10_000, max_dev_pairs=100
    )
    message = refusal_of(**values)
    assert message.startswith("the training data (3,000 pairs)") and "largest allowed max pairs is" in message
    bound = int(message.split("largest allowed max pairs is ")[1].split(" ")[0].replace(",", ""))
    assert 0 < bound < 3000 and fits(**values, max_pairs=bound) and not fits(**values, max_pairs=bound + 1)


def test_the_memory_estimate_follows_the_encoder_config():
    """Peak memory from the config's hidden size, layers and heads: a BERT-base start costs more than MiniLM at
    the same batch, and a frozen encoder keeps no activations."""
    config = TrainConfig(max_steps=60, max_length=128, data="stsb")
    mini = budget.RunPlan.of(config, host=FREE_HOST).estimate(config)
    base = budget.RunPlan.of(config, hf_config=run_cost.FALLBACK_ENCODER, host=FREE_HOST).estimate(config)
    frozen = budget.RunPlan.of(config, host=FREE_HOST).estimate(replace(config, head_only=True))
    assert base.memory > 3 * mini.memory and base.train_seconds > 3 * mini.train_seconds
    assert frozen.memory < mini.memory / 3
    # MiniLM's parameters from its config, against the loaded model's 22.7 M
    assert run_cost.encoder_of("").parameters() == pytest.approx(22.7e6, rel=0.02)


def test_the_command_line_refuses_in_one_line_with_exit_status_2(capsys):
    from stsdemo.cli import main

    assert main(["train", "--batch-size", "4096", "--max-steps", "5", "--data", "stsb"], host=FREE_HOST) == 2
    error = capsys.readouterr().err.strip()
    assert (
        error.startswith("stsdemo: error: batch size 4,096 is over the server's budget") and "\n" not in error
    )


def test_the_environment_opens_the_budget(monkeypatch):
    assert not fits(max_steps=36_000, epochs=100) and not fits(batch_size=1024)
    monkeypatch.setenv("STSDEMO_TRAIN_MINUTES", "600")
    assert fits(max_steps=36_000, epochs=100)
    assert not fits(PRIVATE_HOST, batch_size=512)
    monkeypatch.setenv("STSDEMO_TRAIN_MEMORY_SHARE", "0.9")
    assert fits(PRIVATE_HOST, batch_size=512) and not fits(batch_size=512)
    monkeypatch.setenv("STSDEMO_TRAIN_MINUTES", "-1")
    with pytest.raises(ValueError, match="STSDEMO_TRAIN_MINUTES"):
        budget.work_budget()


def test_more_training_slots_share_the_memory(monkeypatch):
    one = budget.run_memory(budget.work_budget(), FREE_SPACE)
    monkeypatch.setenv("STSDEMO_MAX_TRAINING", "2")
    assert budget.run_memory(budget.work_budget(), FREE_SPACE) == pytest.approx(one / 2)


def test_every_budgeted_setting_can_be_named():
    budgeted = {name for name in TrainConfig.__dataclass_fields__ if describe(name)["budget"]}
    assert budgeted == set(budget.NAMING_ORDER)


# ---- a whole job and the final evaluation (issue 40) ---------------------------------------------------------


def test_a_comparison_is_held_to_the_budget_as_one_job_before_anything_starts():
    """Compare runs 2 x seeds fine-tunes as one job: each run of 300 steps fits alone, the six together do not,
    and the refusal names the job's estimate, each run's, the cap and the steps that fit the whole job."""
    from stsdemo.app.app_state import AppState
    from stsdemo.app.finetune import compare as compare_view
    from stsdemo.serving import session_files

    assert fits(max_steps=300)
    with pytest.raises(InputError) as refused:
        next(
            compare_view.stream_comparison(
                AppState(), "caps-compare", form_values(max_steps=300, seeds=3), host=FREE_HOST
            )
        )
    message = str(refused.value)
    assert message.startswith("Compare trains 6 runs as one job (compare seeds 3") and "\n" not in message
    assert "max steps 300 is over the server's budget: its 6 runs would train for about " in message
    assert "together (about " in message and "one job may take 15 min here" in message
    bound = int(message.split("largest allowed max steps is ")[1].split(" ")[0].replace(",", ""))

    def build(*arguments, **keywords):
        return form.build_config(*arguments, **keywords, host=FREE_HOST)

    assert build("caps", "run-caps", form_values(max_steps=bound), runs=6)
    with pytest.raises(InputError):
        build("caps", "run-caps", form_values(max_steps=bound + 1), runs=6)
    assert session_files.list_runs("caps-compare") == []
    assert build("caps", "run-caps", form_values(max_steps=300), runs=2)  # one seed: two runs fit


def test_the_final_evaluation_is_estimated_with_the_run_and_named_when_it_does_not_fit(monkeypatch):
    """The 7-task evaluation encodes 26,289 sentences with the trained model and its base: on a free Space's
    2 cores about 3 min for MiniLM; a budget it does not fit refuses the run saying so."""
    config = form.build_config("caps", "run-caps", form_values(), host=FREE_HOST)
    with_final = budget.RunPlan.of(config, final_eval=True, host=FREE_HOST).estimate(config)
    without = budget.RunPlan.of(config, host=FREE_HOST).estimate(config)
    assert without.final_seconds == 0 and with_final.seconds == pytest.approx(
        without.seconds + with_final.final_seconds
    )
    tokens = 2 * run_cost.FINAL_EVAL_SENTENCES * run_cost.FINAL_EVAL_TOKENS
    assert with_final.final_seconds == pytest.approx(
        tokens * run_cost.MINILM.forward_flops(14.3) / (2 * run_cost.CPU_FLOPS_PER_CORE)
    )
    monkeypatch.setenv("STSDEMO_TRAIN_MINUTES", "1.5")
    assert fits() and not fits(final_eval=True)
    message = refusal_of(final_eval=True)
    assert "the final 7-task evaluation's " in message and message.endswith(
        "or turn off the final 7-task evaluation"
    )


# ---- links ---------------------------------------------------------------------------------------------------


def test_the_issue_link_is_clamped_with_a_notice_and_then_fits():
    restored = links.parse("?tab=train&max_steps=10000000&batch_size=4096&lr=1", host=FREE_HOST)
    assert restored.tab == "train"
    notices = [n for n in restored.notices if "budget" in n]
    assert len(notices) == 1 and notices[0].startswith("batch size 4,096 is over the server's budget")
    assert "<" not in notices[0] and ">" not in notices[0]
    assert 16 <= restored.values["batch_size"] < 4096 and restored.values["lr"] == 1.0
    assert notices[0].endswith(f"using {restored.values['batch_size']}")
    assert fits(**{name: restored.values[name] for name in form.FORM_FIELDS})


def test_a_link_within_the_budget_keeps_its_values_and_the_environment_opens_it(monkeypatch):
    assert links.parse("?tab=train&batch_size=32&max_steps=100", host=FREE_HOST).notices == []
    monkeypatch.setenv("STSDEMO_TRAIN_MEMORY_SHARE", "0.9")
    monkeypatch.setenv("STSDEMO_TRAIN_MINUTES", "600")
    assert links.parse("?tab=train&batch_size=512&max_steps=3000", host=FREE_HOST).notices != []
    restored = links.parse("?tab=train&batch_size=512&max_steps=3000", host=PRIVATE_HOST)
    assert restored.notices == [] and restored.values["batch_size"] == 512


# ---- hub models --------------------------------------------------------------------------------------------


@pytest.fixture
def hub_sizes() -> budget.Host:
    """A free Space whose hub gives these ids' parameter counts, as its metadata would (None: the hub not
    reached); an id not here is never asked about (KeyError)."""
    sizes = {
        "someone/large-encoder": 335_000_000,
        "someone/small-encoder": 33_000_000,
        "someone/unknown": None,
    }
    return budget.Host(machine=lambda: FREE_SPACE, parameter_count=sizes.__getitem__)


def test_a_hub_model_over_the_size_or_unknown_and_unlisted_is_refused(hub_sizes):
    with pytest.raises(InputError, match=r"335M parameters; this server takes hub models of up to 150M"):
        model_cache.resolve_choice("caps", "someone/large-encoder", host=hub_sizes)
    with pytest.raises(
        InputError, match="could not load model 'someone/unknown': it is not on this server's list"
    ):
        model_cache.resolve_choice("caps", "someone/unknown", host=hub_sizes)
    assert (
        model_cache.resolve_choice("caps", "someone/small-encoder", host=hub_sizes) == "someone/small-encoder"
    )
    listed = "sentence-transformers/all-mpnet-base-v2"  # on the allow list: no count asked
    assert model_cache.resolve_choice("caps", listed, host=hub_sizes) == listed
    assert "335M parameters" in refusal_of(hub_sizes, model="someone/large-encoder")  # the form's Start-from


def test_the_environment_opens_the_hub(hub_sizes, monkeypatch):
    monkeypatch.setenv("STSDEMO_MODEL_MILLIONS", "400")
    assert (
        model_cache.resolve_choice("caps", "someone/large-encoder", host=hub_sizes) == "someone/large-encoder"
    )
    monkeypatch.setenv("STSDEMO_HUB_MODELS", "someone/unknown")
    assert model_cache.resolve_choice("caps", "someone/unknown", host=hub_sizes) == "someone/unknown"
    monkeypatch.setenv("STSDEMO_MODEL_MILLIONS", "10")
    monkeypatch.setenv("STSDEMO_HUB_MODELS", "*")
    assert (
        model_cache.resolve_choice("caps", "someone/large-encoder", host=hub_sizes) == "someone/large-encoder"
    )


def test_local_folders_in_the_model_roots_are_not_hub_ids(tmp_path, hub_sizes):
    folder = tmp_path / "someone" / "large-encoder"
    folder.mkdir(parents=True)
    assert model_cache.resolve_choice("caps", str(folder), host=hub_sizes) == str(folder)


def test_the_parameter_count_is_read_from_the_hub_metadata():
    """Counted without weights: the safetensors total where the hub has one, else the PyTorch weights' bytes
    read as 16-bit numbers; each answer asked once, and kept when the hub is out of reach later."""
    from stsdemo.model_source import HubAnswers, hub_parameter_count

    asked, online = [], [True]

    class Hub:
        """The hub's client as far as counting goes: ``model_info`` with the metadata each model has there."""

        def model_info(self, repo_id, expand=None, files_metadata=False, timeout=None):
            asked.append((repo_id, bool(files_metadata)))
            if repo_id == "org/safetensors-model":
                return SimpleNamespace(safetensors=SimpleNamespace(total=109_482_240))
            if expand:
                return SimpleNamespace(safetensors=None)
            return SimpleNamespace(
                siblings=[
                    SimpleNamespace(rfilename="pytorch_model.bin", size=440_000_000),
                    SimpleNamespace(rfilename="tf_model.h5", size=540_000_000),
                ]
            )

    hub = HubAnswers(Hub(), reachable=lambda: online[0])
    assert hub_parameter_count("org/safetensors-model", hub) == 109_482_240
    assert hub_parameter_count("org/bin-model", hub) == 220_000_000
    assert hub_parameter_count("org/bin-model", hub) == 220_000_000
    assert asked.count(("org/bin-model", True)) == 1
    online[0] = False
    assert (
        hub_parameter_count("org/other", hub) is None
        and hub_parameter_count("org/bin-model", hub) == 220_000_000
    )
    assert ("org/other", False) not in asked


# ---- one place per visitor -------------------------------------------------------------------------------------


def test_the_client_address_is_the_one_the_trusted_proxy_wrote():
    assert client_address("9.9.9.9", "8.8.4.4", hops=0) == "9.9.9.9"  # no proxy: header ignored
    assert client_address("10.16.3.80", "8.8.8.8", hops=1) == "8.8.8.8"
    assert client_address("10.16.3.80", "1.2.3.4, 8.8.8.8", hops=1) == "8.8.8.8"  # 1.2.3.4: forged
    assert client_address("10.16.3.80", "8.8.8.8, 10.0.0.5", hops=2) == "8.8.8.8"
    assert client_address("10.16.3.80", None, hops=1) is None
    assert client_address("10.16.3.80", "10.0.0.5", hops=1) is None  # an internal hop
    assert client_address("127.0.0.1", None, hops=0) is None and client_address(None, "x", hops=1) is None
    # an IPv6 visitor is its /64: a fresh address in it for every call is the same visitor (issue 51)
    assert client_address("10.16.3.80", "2a00:1450:4001:81c:1:2:3:4", hops=1) == "2a00:1450:4001:81c::/64"
    assert client_address("2a00:1450:4001:81c::9", None, hops=0) == "2a00:1450:4001:81c::/64"
    assert client_address("::ffff:8.8.8.8", None, hops=0) == "8.8.8.8"


def test_a_visitor_is_named_by_address_behind_the_space_proxy(monkeypatch):
    request = SimpleNamespace(
        client=SimpleNamespace(host="10.16.3.80"),
        headers={"x-forwarded-for": "6.6.6.6, 8.8.8.8"},
        session_hash="abc",
    )
    assert visitor_of(request) is None  # not on a Space: no proxy trusted
    monkeypatch.setenv("SPACE_ID", "someone/stsdemo")
    assert visitor_of(request) == "address 8.8.8.8"
    monkeypatch.setenv("STSDEMO_PROXY_HOPS", "0")
    assert visitor_of(request) is None  # the proxy's own address is private


def test_a_session_holds_one_place_and_an_address_its_cap_whatever_its_sessions(tmp_path, monkeypatch):
    """Five sessions from one address: two take places (the slot, then a waiting place: the address's cap),
    the others are refused at once, so the waiting places left stay free for other visitors; an address's
    place is free again when its run ends; one session never holds two (issue 51: a class shares one
    address)."""
    from stsdemo.app.app_state import AppState
    from stsdemo.app.finetune import view as finetune_view

    monkeypatch.delenv("STSDEMO_TRAINING_PER_ADDRESS", raising=False)
    state = AppState(line=JobLine(slots=1, waiting=4))

    def job(session: str, visitor: str | None):
        config = TrainConfig(run_name=f"run-{session}")
        return finetune_view.stream_job(
            state, session, config, [], lambda signal: iter([f"trained {session}"]), visitor
        )

    first = job("s1", "address 8.8.8.8")
    assert next(first) == "trained s1"
    second = job("s2", "address 8.8.8.8")
    assert "Waiting for the trainer" in next(second).status and state.line.counts() == (1, 1)
    for session in ("s3", "s4", "s5"):
        with pytest.raises(InputError, match="at most 2 an address"):
            next(job(session, "address 8.8.8.8"))
    with pytest.raises(InputError, match="one place per visitor"):
        next(job("s1", "address 8.8.8.8"))
    other = job("s6", "address 9.9.9.9")
    assert "Waiting for the trainer" in next(other).status and state.line.counts() == (1, 2)
    first.close()
    second.close()
    other.close()
    assert state.line.counts() == (0, 0)
    again = job("s3", "address 8.8.8.8")
    assert next(again) == "trained s3"
    again.close()
    # without an address the session is the visitor: its second job is refused the same way
    alone = job("s7", None)
    next(alone)
    with pytest.raises(InputError, match="one place per visitor"):
        next(job("s7", None))
    alone.close()
