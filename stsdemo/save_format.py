"""A saved scorer on disk: the one module that knows its files.

A saved scorer is a folder that is both a plain sentence-transformers model (``SentenceTransformer(path)``
loads the encoder with mean pooling) and, through ``head.safetensors`` + ``stsdemo.json``, our regressor.
Its encoder is stored in one of four ways (``encoder_weights`` in ``stsdemo.json``): ``full``, ``fp16``
(halved on disk), ``lora`` (a peft adapter over ``base_model``) or ``none`` (the head only; the encoder is
``base_model``'s). A training run writes ``run.json`` beside it. No pickle anywhere: weights go through
safetensors, settings through JSON.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from safetensors import SafetensorError
from safetensors.torch import load_file, save_file
from torch import nn

from .atomic import remove_stale_staging, replace_folder
from .errors import InputError
from .labels import LabelScheme

CONFIG_NAME = "stsdemo.json"
HEAD_NAME = "head.safetensors"
RUN_RECORD = "run.json"  # the run that wrote the checkpoint: config, dev curve, how it ended
TEST_RECORD = "senteval.json"  # its 7-task test scores (stsdemo.final_eval.TestScores.rows)
SNLI_RECORD = "snli.json"  # an NLI scorer's SNLI test metrics (bench.evidence.nli --evaluate)
CARD_NAME = "README.md"  # its model card (stsdemo.model_card), written from the files above
RECORDS = (RUN_RECORD, TEST_RECORD, SNLI_RECORD)
ENCODER_CONFIG = "config.json"  # transformers' files of a stored encoder
ENCODER_FILE = "model.safetensors"
ADAPTER_CONFIG = "adapter_config.json"  # peft's: a LoRA folder holds the adapter, not the encoder
FORMAT_VERSION = 2  # 2: "target" and "encoder_weights" in the config
ENCODER_WEIGHTS = ("full", "fp16", "lora", "none")


# ---- what a folder holds ----------------------------------------------------------------------------


def is_scorer(folder: str | Path) -> bool:
    """Whether ``folder`` holds a saved scorer (our config), not just an encoder."""
    return (Path(folder) / CONFIG_NAME).is_file()


def is_adapter(folder: Path) -> bool:
    """Whether ``folder`` holds a LoRA adapter (peft's files) rather than an encoder."""
    return (folder / ADAPTER_CONFIG).is_file()


def has_encoder_config(folder: Path) -> bool:
    return (folder / ENCODER_CONFIG).is_file()


def is_model_folder(folder: Path) -> bool:
    """Whether ``folder`` holds an encoder or a scorer."""
    return has_encoder_config(folder) or is_scorer(folder)


def weight_files(folder: Path) -> list[Path]:
    """The files whose change means a loaded copy of the scorer is stale."""
    return [folder / CONFIG_NAME, folder / HEAD_NAME, folder / ENCODER_FILE]


def files_stamp(source: str | Path) -> float:
    """When a model folder's weights or config last changed (0 for a hub id)."""
    path = Path(source)
    if not path.is_dir():
        return 0.0
    return max((f.stat().st_mtime for f in weight_files(path) if f.is_file()), default=0.0)


def encoder_config(folder: Path) -> dict | None:
    """The stored encoder's transformers config (None when the folder has no readable one)."""
    try:
        return json.loads((folder / ENCODER_CONFIG).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# ---- reading ----------------------------------------------------------------------------------------


def read_config(folder: str | Path) -> dict:
    """A saved scorer's ``stsdemo.json``."""
    config_file = Path(folder) / CONFIG_NAME
    try:
        return json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError("config_unreadable", config_file=config_file, error=error) from None


def stored_encoder(config: dict) -> str:
    """How a saved scorer stores its encoder (one of :data:`ENCODER_WEIGHTS`; format 1 wrote ``head_only``)."""
    return config.get("encoder_weights") or ("none" if config.get("head_only") else "full")


def encoder_from_base(config: dict) -> bool:
    """Whether the scorer's encoder is loaded from its ``base_model`` (head only, or an adapter over it)."""
    return stored_encoder(config) in ("none", "lora")


def read_scheme(folder: str | Path, config: dict) -> LabelScheme:
    try:
        return LabelScheme.from_dict(config.get("scheme") or {})
    except (KeyError, TypeError, ValueError) as error:
        raise InputError("config_bad_field", file=Path(folder) / CONFIG_NAME, error=error) from None


def read_options(folder: Path, config: dict) -> dict:
    """The regressor's constructor options a saved config holds (its encoder storage checked)."""
    try:
        options = dict(
            scheme=LabelScheme.from_dict(config["scheme"]),
            features=config["features"],
            classification=bool(config["classification"]),
            max_length=int(config["max_length"]),
            base_model=config.get("base_model", ""),
            target=config.get("target", "head"),
        )
        if stored_encoder(config) not in ENCODER_WEIGHTS:
            raise ValueError(f"encoder_weights {stored_encoder(config)!r}")
    except (KeyError, TypeError, ValueError) as error:
        raise InputError("config_bad_field", file=folder / CONFIG_NAME, error=error) from None
    return options


def read_head(folder: Path, head: nn.Module) -> None:
    """Load the head's weights saved in ``folder`` into ``head``."""
    try:
        head.load_state_dict(load_file(str(folder / HEAD_NAME)))
    except (OSError, SafetensorError, RuntimeError) as error:
        raise InputError(
            "head_weights_damaged", folder=repr(str(folder)), error=str(error)[:200], head_name=HEAD_NAME
        ) from None


def attach_adapter(encoder: nn.Module, folder: Path, merge: bool) -> nn.Module:
    """The encoder with the LoRA adapter saved in ``folder``: merged into its weights, or kept beside them
    (peft)."""
    from peft import PeftModel

    try:
        wrapped = PeftModel.from_pretrained(encoder, str(folder))
        return wrapped.merge_and_unload() if merge else wrapped
    except (OSError, ValueError, KeyError, RuntimeError, SafetensorError) as error:
        raise InputError("lora_damaged", folder=repr(str(folder)), error=str(error)[:200]) from None


# ---- writing ----------------------------------------------------------------------------------------


def write(
    model, folder: str | Path, encoder_weights: str, beside: Callable[[Path], None] | None = None
) -> Path:
    """Write ``model`` (a :class:`~stsdemo.model.SiameseRegressor`) atomically, its encoder stored as
    ``encoder_weights``: into a temporary sibling folder, flushed, then swapped into place.

    ``beside(staging)`` writes the files that describe these weights (the run's ``run.json``, its card) into
    that folder before the swap, so the weights and their records arrive as one: a kill mid-write leaves
    either the old folder with its records or the new one with its own, never a half-written model nor
    weights beside another checkpoint's record (see :mod:`stsdemo.atomic`).
    """
    folder = Path(folder).resolve()
    folder.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(folder)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        if encoder_weights == "lora":
            # The adapter names the base by this scorer's portable name, not the machine's path to it;
            # peft's template model card (all placeholders) is not written. The adapter never touches the
            # embeddings, so peft need not look for the base's config to compare vocabularies (a hub probe that
            # warns offline).
            model.encoder.peft_config["default"].base_model_name_or_path = model.base_model
            model.encoder.save_pretrained(staging, safe_serialization=True, save_embedding_layers=False)
            (staging / "README.md").unlink(missing_ok=True)
        elif encoder_weights != "none":
            halved = encoder_weights == "fp16"
            state = {k: v.half() for k, v in model.encoder.state_dict().items()} if halved else None
            model.encoder.save_pretrained(staging, safe_serialization=True, state_dict=state)
            model.tokenizer.save_pretrained(staging)
            _write_sentence_transformers_files(staging, model.encoder.config.hidden_size, model.max_length)
        save_file(
            {k: v.detach().float().cpu().contiguous() for k, v in model.head.state_dict().items()},
            str(staging / HEAD_NAME),
        )
        config = {
            "format_version": FORMAT_VERSION,
            "base_model": model.base_model,
            "target": model.target,
            "features": model.features,
            "classification": model.classification,
            "scheme": model.scheme.to_dict(),
            "max_length": model.max_length,
            "encoder_weights": encoder_weights,
        }
        (staging / CONFIG_NAME).write_text(json.dumps(config, indent=2), encoding="utf-8")
        if beside is not None:
            beside(staging)
        replace_folder(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


def _write_sentence_transformers_files(folder: Path, hidden_size: int, max_length: int) -> None:
    """The files that make the folder load as ``SentenceTransformer(folder)`` with mean pooling. The module types
    are the paths sentence-transformers itself writes since v5.4 (its ``sentence_transformers.models.*`` are
    deprecated aliases)."""
    modules = [
        {
            "idx": 0,
            "name": "0",
            "path": "",
            "type": "sentence_transformers.base.modules.transformer.Transformer",
        },
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.sentence_transformer.modules.pooling.Pooling",
        },
    ]
    pooling = {
        "word_embedding_dimension": hidden_size,
        "pooling_mode_cls_token": False,
        "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False,
    }
    (folder / "1_Pooling").mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling, indent=2))
    (folder / "modules.json").write_text(json.dumps(modules, indent=2))
    (folder / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": max_length, "do_lower_case": False}, indent=2)
    )
