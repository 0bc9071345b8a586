"""The *Fine-tune* form, drawn from the one declaration of every training setting (:mod:`stsdemo.config`).

Each setting in :data:`MAIN_ROWS` / :data:`MORE_ROWS` becomes a field from :func:`stsdemo.config.describe`
(label, help, lower bound, choices, the paper's value): :func:`field_spec` says how, the UI draws it, and
the handler gets the values keyed by field name. :func:`build_config` turns them into
``TrainConfig(**values)`` and checks it (:func:`stsdemo.preflight.preflight`, then the server's work budget,
:mod:`stsdemo.serving.budget`, which bounds the settings declared with ``budget=``); the app re-checks no range itself.
A new setting in the form is one more name in a row here. The start model, the data (with an upload) and the
final evaluation are the app's own inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ... import default_finetune, strings
from ...config import PRESETS, TrainConfig, as_written, describe
from ...data import PairSet, load_csv
from ...errors import InputError
from ...labels import get_scheme
from ...losses.spec import LOSSES
from ...model_source import saved_config
from ...preflight import preflight
from ...serving import budget, session_files
from .. import model_cache

# Where each TrainConfig setting sits in the form: rows of the main block, then rows under "More settings".
MAIN_ROWS = (
    ("loss", "target"),
    ("k", "x0", "lr"),
    ("batch_size", "max_steps", "epochs"),
    ("eval_every", "max_length"),
    ("two_stage",),
)
MORE_ROWS = (("log_every", "max_pairs", "seed"), ("max_dev_pairs", "head_lr"), ("select_by", "head_only"))
FORM_FIELDS = tuple(name for rows in (MAIN_ROWS, MORE_ROWS) for row in rows for name in row)
BUDGET = ("max_steps", "eval_every", "log_every", "max_pairs", "max_dev_pairs", "seed")  # presets keep these

TRAINING_DATA_CHOICES = {
    "STS-B train": "stsb",
    "SICK-R train": "sick",
    "STS-B + SICK-R (filtered)": "stsb+sick",
    "NLI (SNLI)": "nli",
    "Upload CSV / TSV": "upload",
}
# How a choice reads in the form (a setting's value -> its text); values not listed read as themselves.
CHOICE_TEXT = {
    "loss": {name: f"{spec.label} [{name}]" for name, spec in LOSSES.items()},
    "select_by": {
        "head": "head Spearman (what Score a pair uses)",
        "cosine": "cosine Spearman (what the 7-task benchmark scores)",
    },
    "target": {
        "head": "head: Linear on [u, v, |u−v|] (the paper's)",
        "cosine": "cosine: a·cos(u, v) + b, a and b learned",
    },
}
# Choices the form leaves out: accuracy selects runs on held-out SNLI pairs (the NLI scorer's preset, the CLI),
# and the form's runs are chosen on STS-B dev, whose curves and titles read Spearman.
NOT_OFFERED = {"select_by": ("accuracy",)}
# Gradio's bounds are inclusive: where a declaration's lower end is open, the form offers this minimum.
OPEN_MINIMUM = {"epochs": 0.01, "k": 0.01}


# ---- the form ---------------------------------------------------------------------------------------------


@dataclass
class FieldSpec:
    """How one setting appears in the form (the UI turns it into a component)."""

    name: str
    kind: str  # "number", "checkbox" or "choice"
    label: str
    info: dict[str, str]  # language -> its help text (strings.json's train_help holds the Chinese)
    value: object
    minimum: float | None = None
    integer: bool = False
    choices: tuple = ()  # the texts of a choice
    maximum: float | None = None  # drawn for the settings of another declaration than TrainConfig's


def default_form() -> dict:
    """The form's defaults on this machine, read when the form is built (not when this module is imported): the
    core's default fine-tune (:mod:`stsdemo.default_finetune`), its start as the form's choice of the shipped
    scorer (the embedded encoder where none is shipped: :func:`form_defaults`)."""
    return {"model": model_cache.SCORER_CHOICE, **default_finetune.default_settings()}


def empty_as_zero(meta: dict) -> bool:
    """Optional whole numbers that start at 1 take 0 for "empty" in the form (and through the API)."""
    return bool(meta["optional"] and meta["integer"] and meta["low"] is not None and meta["low"] >= 1)


def field_spec(name: str, of: type | None = None) -> FieldSpec:
    """A setting's form field, from its declaration in :mod:`stsdemo.config` and :func:`default_form`; ``of``:
    another dataclass declaring it with :func:`stsdemo.config.setting` (its field gets its upper bound too)."""
    meta = describe(name, of)
    label = meta["title"][:1].upper() + meta["title"][1:]
    # A choice's options say what each value does; its help up to the first colon says what it chooses.
    text = meta["help"].split(": ", 1)[0] if meta["choices"] else meta["help"]
    info = {"en": text, "zh": strings.declared()["train_help"][name]}
    if meta["paper"] not in (None, ""):
        info = {
            lang: strings.text("app", "train_info_paper", lang, help=said, paper=as_written(meta["paper"]))
            for lang, said in info.items()
        }
    if of is not None:
        return FieldSpec(
            name,
            "number",
            label,
            info,
            meta["default"],
            meta["low"],
            bool(meta["integer"]),
            maximum=meta["high"],
        )
    value = default_form().get(name, meta["default"])
    if isinstance(meta["default"], bool):
        return FieldSpec(name, "checkbox", label, info, bool(value))
    if meta["choices"]:
        return FieldSpec(
            name,
            "choice",
            label,
            info,
            field_text(name, value),
            choices=tuple(field_text(name, c) for c in offered_choices(name)),
        )
    minimum = meta["low"]
    if empty_as_zero(meta):
        minimum, value = 0, value or 0
        info = {lang: strings.text("app", "train_info_empty", lang, help=said) for lang, said in info.items()}
    elif meta["low_open"]:
        minimum = OPEN_MINIMUM.get(name, minimum)
    return FieldSpec(name, "number", label, info, value, minimum, bool(meta["integer"]))


def offered_choices(name: str) -> list[str]:
    """The values of a choice setting that the form offers."""
    return [c for c in describe(name)["choices"] if c not in NOT_OFFERED.get(name, ())]


def field_text(name: str, value):
    """How a setting's value reads in the form (a choice's text; other values as they are)."""
    return CHOICE_TEXT.get(name, {}).get(value, value)


def from_form(name: str, value):
    """A form field's value as the setting takes it: a choice's text -> its value, 0 -> None where 0 means
    empty, an empty field -> the declared default (or None where the setting is optional)."""
    meta = describe(name)
    if value is None or value == "":
        return None if meta["optional"] else meta["default"]
    if meta["choices"]:
        return {text: key for key, text in CHOICE_TEXT.get(name, {}).items()}.get(value, value)
    if empty_as_zero(meta) and value == 0:
        return None
    if meta["integer"] and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def form_defaults() -> dict:
    """Every input of the form at its default: the training settings plus model, data, upload, scheme and
    final_eval (what ``/train`` runs when called with no arguments)."""
    defaults = default_form()
    start = defaults["model"] if model_cache.scorer_available() else model_cache.DEFAULT_CHOICE
    return dict(
        {name: field_spec(name).value for name in FORM_FIELDS},
        model=start,
        data=next(iter(TRAINING_DATA_CHOICES)),
        upload=None,
        scheme="sts",
        final_eval=defaults["final_eval"],
    )


def form_presets() -> list[str]:
    """The presets the form can hold: those whose training data is one of its choices (the NLI scorer's
    recipe trains on SNLI dev less a held-out part that selects it: a command-line recipe)."""
    return [name for name in PRESETS if TrainConfig.from_preset(name).data in TRAINING_DATA_CHOICES.values()]


def preset_values(preset: str) -> dict:
    """The form values a preset sets: its whole recipe (from the embedded encoder with a fresh head; the
    paper's settings where the preset does not say), leaving the run's length and seed as they are."""
    if preset not in form_presets():
        raise InputError("unknown_preset", preset=repr(preset), presets=", ".join(form_presets()))
    recipe = TrainConfig.from_preset(preset)
    data = next((text for text, key in TRAINING_DATA_CHOICES.items() if key == recipe.data), recipe.data)
    values = {name: field_text(name, getattr(recipe, name)) for name in FORM_FIELDS if name not in BUDGET}
    return dict(values, model=model_cache.DEFAULT_CHOICE, data=data)


def start_target(session: str, choice: str | None) -> str | None:
    """The target of the saved scorer a run would start from (None for an encoder, or a choice that does
    not resolve: the form says why when the run starts)."""
    try:
        source = model_cache.resolve_choice(session, choice, encoder_default=True)
        config = saved_config(source, model_cache.allowed_roots()) if source else None
    except InputError:
        return None
    return None if config is None else config.get("target", "head")


def _training_data(
    session: str, run_id: str, data: str, upload: str | None, scheme: str
) -> tuple[str, PairSet | None]:
    """The ``data`` of a run: a built-in set's name, or where an uploaded file will be copied, with the file's
    pairs (read and checked here; None for a built-in set)."""
    key = TRAINING_DATA_CHOICES.get(data, data)
    if key != "upload":
        return key, None
    if not upload:
        raise InputError("choose_training_file")
    suffix = Path(upload).suffix.lower()
    if suffix not in (".csv", ".tsv", ".tab", ".txt"):
        raise InputError("training_file_suffix", suffix=suffix or "no extension")
    pairs = load_csv(upload, get_scheme(scheme))  # bad files fail here, before a run starts
    return str(session_files.session_run_folder(session, run_id) / f"train-data{suffix}"), pairs


def settings_config(values: dict, **run) -> TrainConfig:
    """A TrainConfig (not checked) of the form's settings in ``values`` (keyed by field name; a missing one takes
    its form default) and the run's own fields ``run`` (model, data, ...), as
    :func:`stsdemo.default_finetune.run_config` joins them."""
    return default_finetune.run_config(
        {name: from_form(name, values.get(name, field_spec(name).value)) for name in FORM_FIELDS}, **run
    )


def build_config(
    session: str, run_id: str, values: dict, runs: int = 1, host: budget.Host = budget.HOST
) -> TrainConfig:
    """A checked TrainConfig from the form's ``values`` (keyed by field name; a missing one takes its form
    default), before the run is queued: its settings (:func:`stsdemo.preflight.preflight`), then its estimate
    (with the final 7-task evaluation where ``values`` turn it on) against the server's work budget
    (:func:`stsdemo.serving.budget.check_run`; ``runs``: the job trains that many runs of these settings, a Compare's
    pairs; ``host``: the machine and hub it is held to); the best checkpoint goes to the run's folder."""
    scheme = str(values.get("scheme") or "sts").strip() or "sts"
    data, uploaded = _training_data(
        session, run_id, values.get("data") or "stsb", values.get("upload"), scheme
    )
    model = model_cache.resolve_choice(session, values.get("model"), encoder_default=True, host=host)
    config = preflight(
        settings_config(
            values,
            model=model,
            data=data,
            scheme="sts" if data in TRAINING_DATA_CHOICES.values() else scheme,
            run_name=run_id,
            output_dir=str(session_files.session_run_folder(session, run_id) / "checkpoint"),
        )
    )
    budget.check_run(
        config,
        {data: uploaded} if uploaded is not None else None,
        final_eval=bool(values.get("final_eval")),
        runs=runs,
        host=host,
    )
    return config
