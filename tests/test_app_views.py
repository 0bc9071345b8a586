"""The app's view-models and figures without a server: the form drawn from the settings' declarations, the
presets, the figures (valid Plotly), the stop signal a ZeroGPU worker gets, and the layering rule."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import plotly.graph_objects as go
import pytest

from stsdemo.config import PRESETS, TrainConfig, describe
from stsdemo.errors import InputError
from stsdemo.events import EvalEvent, StageStep
from stsdemo.labels import get_scheme

ROOT = Path(__file__).resolve().parent.parent


def test_the_core_never_imports_the_app():
    for path in (ROOT / "stsdemo").rglob("*.py"):
        if "app" in path.relative_to(ROOT / "stsdemo").parts:
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+(stsdemo\.app|\.app\b|\.\.app\b)", text, re.M), path


def test_every_form_field_comes_from_its_declaration_and_the_defaults_make_a_valid_config():
    from stsdemo.app.finetune import form

    values = {}
    for name in form.FORM_FIELDS:
        spec, meta = form.field_spec(name), describe(name)
        assert spec.label.lower() == meta["title"].lower() and spec.label[0].isupper()
        assert spec.info["en"].startswith(meta["help"].split(":")[0]) and spec.info["zh"]
        if spec.kind == "choice":
            left_out = form.NOT_OFFERED.get(name, ())
            assert set(left_out) < set(meta["choices"]) and spec.value in spec.choices
            assert [form.from_form(name, text) for text in spec.choices] == [
                value for value in meta["choices"] if value not in left_out
            ]
        values[name] = form.from_form(name, spec.value)
    config = TrainConfig(**values, data="stsb")
    config.validate()
    assert (config.target, config.loss) == ("cosine", "sk2")  # the app's default fine-tune
    assert form.from_form("max_steps", 0) is None and form.from_form("k", None) is None
    assert form.from_form("loss", "Smooth K2 (ours) [sk2]") == "sk2"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_preset_fills_the_form_with_its_recipe(preset):
    from stsdemo.app.finetune import form

    if TrainConfig.from_preset(preset).data not in form.TRAINING_DATA_CHOICES.values():
        assert preset not in form.form_presets()  # a command-line recipe (the NLI scorer's held-out split)
        with pytest.raises(InputError, match="unknown preset"):
            form.preset_values(preset)
        return

    values = form.preset_values(preset)
    config = TrainConfig.from_preset(preset)
    for name, text in values.items():
        if name in form.FORM_FIELDS:
            assert form.from_form(name, text) == getattr(config, name), name
    assert values["model"] == "default" and not set(form.BUDGET) & set(values)
    with pytest.raises(InputError, match="unknown preset"):
        form.preset_values("no-such-preset")


def test_number_line_is_a_valid_figure_with_the_chosen_node_highlighted():
    from stsdemo.app.figure_style import COLORS
    from stsdemo.app.score.figures import number_line

    scheme = get_scheme("sts")
    figure = number_line(scheme, 3.4, 0.25, 3.5, title="t")
    checked = go.Figure(figure.to_dict())  # plotly validates every key and value here
    shapes = checked.layout.shapes
    assert len(shapes) == 2 * 6 + 7  # per node a margin and a buffer band, then the 7 boundaries
    assert shapes[2 * 3].fillcolor == COLORS["chosen"] and shapes[0].fillcolor == COLORS["margin"]
    assert [t.name for t in checked.data][-1] == "prediction 3.400"
    assert number_line(get_scheme("nli"), None, 0.0).layout.xaxis.ticktext[0] == "<b>contradiction</b><br>0"


def test_error_histogram_marks_x0_and_half_the_gap_and_shows_the_start():
    from stsdemo.app.finetune.histograms import error_histogram

    def evaluation(step, counts):
        return EvalEvent(
            1,
            step,
            10,
            0.0,
            0.0,
            0.0,
            0.0,
            StageStep(1, 0),
            False,
            0.0,
            error_hist={"width": 0.05, "counts": counts},
            x0=0.25,
            gap=1.0,
        )

    figure = go.Figure(
        error_histogram(
            [evaluation(0, [0, 2, 4, 4, 2, 8]), evaluation(10, [5, 5, 5, 5, 0, 0])], "#1"
        ).to_dict()
    )
    lines = sorted(shape.x0 for shape in figure.layout.shapes if shape.type == "line")
    assert lines == [0.25, 0.5]
    assert [trace.name for trace in figure.data] == ["start, step 0", "step 10 (latest)"]
    assert "100% in the buffer" in figure.layout.title.text
    assert error_histogram([]).layout.annotations[0].text.startswith("appears")


def test_a_pickled_stop_signal_still_sees_the_flag_file(tmp_path):
    from stsdemo.app.app_state import StopSignal

    signal = StopSignal(tmp_path / "STOP")
    copy = pickle.loads(pickle.dumps(signal))
    assert not copy.is_set()
    (tmp_path / "STOP").touch()
    assert copy.is_set() and signal.is_set()


def test_training_curves_format_their_ticks_even_for_one_point():
    """One evaluation (step 0) must not get raw ticks such as "89.709692" and "0.000000": the charts carry
    d3 tick formats, and the dev chart a y range of whole points at least one point wide."""
    import gradio as gr
    import pandas as pd

    from stsdemo.app.finetune.curves import CURVE_AXES, dev_y_range

    one = pd.DataFrame({"step": [0], "spearman": [89.709692], "run": ["#1 sk2 · cosine"]})
    assert dev_y_range(one) == [89.0, 90.0]
    two = pd.DataFrame({"step": [0, 20], "spearman": [89.71, 90.13], "run": ["a", "a"]})
    assert dev_y_range(two) == [89.0, 91.0]
    assert dev_y_range(one.iloc[:0]) is None
    for name, y in (("dev", "spearman"), ("loss", "loss"), ("buffer", "share")):
        config = gr.LinePlot(
            one.rename(columns={"spearman": y}), x="step", y=y, color="run", **CURVE_AXES[name]
        ).get_config()
        assert config["x_axis_format"] == "d" and config["y_axis_format"]
    assert f"{89.709692:{CURVE_AXES['dev']['y_axis_format']}}" == "89.7"


def test_a_built_in_scheme_that_does_not_fit_the_model_says_why_and_which_model_fits():
    from stsdemo.app.score import view as score_view

    sts, nli = get_scheme("sts"), get_scheme("nli")
    own, sts_choice, nli_choice, custom = score_view.SCHEME_CHOICES
    assert score_view.scheme_mismatch(sts_choice, sts) == score_view.scheme_mismatch(nli_choice, nli) == ""
    # a reading, noted apart
    assert score_view.scheme_mismatch(own, sts) == score_view.scheme_mismatch(custom, sts) == ""
    text = score_view.scheme_mismatch(nli_choice, sts)
    assert (
        "does not fit" in text and "contradiction" in text and "shipped NLI scorer" in text
    )  # why, what fits
    assert "shipped scorer" in score_view.scheme_mismatch(sts_choice, nli)


def test_the_mcp_server_is_asked_for_by_flag_or_environment(monkeypatch):
    from stsdemo.app.page import launch_kwargs, mcp_wanted

    monkeypatch.delenv("STSDEMO_MCP", raising=False)
    assert not mcp_wanted([]) and mcp_wanted(["--mcp"]) and "mcp_server" not in launch_kwargs()
    assert launch_kwargs(mcp=True)["mcp_server"] is True
    monkeypatch.setenv("STSDEMO_MCP", "1")
    assert mcp_wanted([]) and launch_kwargs()["mcp_server"] is True


@pytest.mark.slow
def test_run_history_is_chosen_off_on_a_space_and_on_for_your_own_machine(monkeypatch):
    """Issue 51, case 8: since Gradio 6.24 launch(run_history=None) means on, and on a shared school computer
    the next student reloaded the previous one's runs. The app says which: off on a Space, on elsewhere,
    either way by STSDEMO_RUN_HISTORY; a launched app's config (which its page reads) says the same."""
    import gradio as gr
    import httpx

    from stsdemo import environment
    from stsdemo.app.page import launch_kwargs

    monkeypatch.delenv("STSDEMO_RUN_HISTORY", raising=False)
    monkeypatch.delenv("SPACE_ID", raising=False)
    assert launch_kwargs()["run_history"] is True
    monkeypatch.setenv("STSDEMO_RUN_HISTORY", "0")
    assert launch_kwargs()["run_history"] is False
    monkeypatch.setenv("STSDEMO_RUN_HISTORY", "yes")
    with pytest.raises(ValueError, match="STSDEMO_RUN_HISTORY"):
        environment.run_history()
    monkeypatch.delenv("STSDEMO_RUN_HISTORY")
    monkeypatch.setenv("SPACE_ID", "someone/stsdemo")
    with gr.Blocks() as demo:
        gr.Markdown("run history")
    options = {key: value for key, value in launch_kwargs().items() if key == "run_history"}
    assert options == {"run_history": False}
    _, url, _ = demo.launch(prevent_thread_lock=True, quiet=True, **options)
    try:
        assert httpx.get(f"{url}config", timeout=30).json()["run_history"] is False
    finally:
        demo.close()


def test_the_form_defaults_follow_the_machine_the_form_is_built_on(monkeypatch):
    from stsdemo import default_finetune
    from stsdemo.app.finetune import form

    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)
    monkeypatch.setattr(default_finetune.torch.cuda, "is_available", lambda: False)
    assert form.form_defaults()["final_eval"] is False
    assert form.field_spec("max_steps").value == default_finetune.DEFAULT_STEPS
    monkeypatch.setenv("SPACES_ZERO_GPU", "true")  # a ZeroGPU Space lends the GPU to each run
    assert form.form_defaults()["final_eval"] is True
    monkeypatch.delenv("SPACES_ZERO_GPU")
    monkeypatch.setattr(default_finetune.torch.cuda, "is_available", lambda: True)
    assert form.form_defaults()["final_eval"] is True and form.field_spec("max_steps").value == 0
