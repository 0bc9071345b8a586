"""A saved run's model card (``README.md``), in the layout sentence-transformers writes, from the run's own record.

sentence-transformers users expect a card with YAML metadata (``library_name``, ``pipeline_tag``, ``base_model``,
``tags``), the model's details, how to load it, its metrics, the training data, loss, hyperparameters and log,
the framework versions and the citation. :func:`card_text` writes that from what the folder itself holds:
``run.json`` (the config, the dev curve, how the run ended; :mod:`stsdemo.train`; or a Playground head's run:
:mod:`stsdemo.playground.export_run`), ``stsdemo.json`` (how the
scorer is stored; :mod:`stsdemo.save_format`) and, when the run was evaluated, ``senteval.json`` (the 7 STS
tasks) or ``snli.json`` (SNLI test). A section whose record is missing is left out, never filled with
placeholders; no path of the machine that wrote it appears. :func:`write_card` writes it into the folder.
"""

from __future__ import annotations

import json
import platform
from dataclasses import MISSING, fields
from pathlib import Path

from . import __version__, save_format
from .atomic import atomic_write
from .config import TrainConfig, encoder_family
from .errors import InputError
from .evaluate import TABLE_NAMES, TASKS
from .events import StageStep
from .losses.spec import LOSSES, run_k
from .model_source import DEFAULT_MODEL_NAMES, start_encoder_config
from .selection import score_text

EMBEDDED_HUB_ID = DEFAULT_MODEL_NAMES[-1]  # what the embedded all-MiniLM-L6-v2 is a copy of
HIDDEN = ("output_dir", "run_name")  # where the run was written: never in a card
PATH_SETTINGS = ("model", "data", "stage1_data", "calibrate_data")
CITATION = """@article{zhang2024advancing,
  title={Advancing Semantic Textual Similarity Modeling: A Regression Framework with Translated ReLU and Smooth K2 Loss},
  author={Zhang, Bowen and Li, Chunping},
  journal={arXiv preprint arXiv:2406.05326},
  year={2024}
}"""
SBERT_CITATION = """@inproceedings{reimers-2019-sentence-bert,
  title={Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks},
  author={Reimers, Nils and Gurevych, Iryna},
  booktitle={Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing},
  year={2019},
  url={https://arxiv.org/abs/1908.10084}
}"""
TARGETS = {
    "head": "a linear head on [u, v, |u-v|] (the paper's)",
    "cosine": "a·cos(u, v) + b, a and b learned",
}
STORAGE = {
    "full": "full weights",
    "fp16": "full weights in fp16",
    "lora": "a LoRA adapter over the base model",
    "none": "none (only the head; the encoder is the base model's)",
}
EXAMPLE = ("A man is playing a guitar.", "A man plays the guitar.", "A dog runs in the park.")
PLAYGROUND_RUN = "playground"  # run.json's "kind" for a Playground head over a frozen encoder


def framework_versions() -> dict[str, str]:
    """The versions a run was made with (kept in its ``run.json``, shown by its card)."""
    import torch
    import transformers

    return {
        "python": platform.python_version(),
        "stsdemo": __version__,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
    }


def shown(name: str, value) -> str:
    """A setting as a card shows it: a local path by its last part only (no machine's folders)."""
    text = str(value)
    if name == "model" and text in DEFAULT_MODEL_NAMES:
        return f"{EMBEDDED_HUB_ID} (embedded)"
    if name in PATH_SETTINGS and ("/" in text or "\\" in text) and not hub_id(text):
        return Path(text).name
    return text


def hub_id(base_model: str) -> str | None:
    """The hub id a base model name stands for: the embedded model's, a hub id as it is, None for a folder."""
    if base_model in DEFAULT_MODEL_NAMES:
        return EMBEDDED_HUB_ID
    text = str(base_model)
    is_hub = text.count("/") == 1 and not text.startswith((".", "/", "~")) and not Path(text).exists()
    return text if is_hub else None


def non_default(config: dict, family: str) -> dict:
    """The settings a run changed from :class:`~stsdemo.config.TrainConfig`'s defaults (k only when it is not
    the paper's for the encoder family; where it was written, never)."""
    changed = {}
    for item in fields(TrainConfig):
        if item.name in HIDDEN or item.name not in config:
            continue
        default = item.default if item.default is not MISSING else None
        value = config[item.name]
        if item.name == "k":
            default = run_k(config.get("loss", "sk2"), None, family)
        if value != default:
            changed[item.name] = shown(item.name, value)
    return changed


def _yaml(items: dict) -> str:
    lines = []
    for key, value in items.items():
        if isinstance(value, list):
            lines += [f"{key}:", *(f"- {json.dumps(v)}" for v in value)]
        else:
            lines.append(f"{key}: {json.dumps(value)}")
    return "\n".join(lines)


def front_matter(run: dict, saved: dict) -> str:
    """The YAML metadata the hub and sentence-transformers read."""
    config = run.get("config", {})
    loss = LOSSES[config["loss"]].short if config.get("loss") in LOSSES else config.get("loss")
    meta = {
        "library_name": "sentence-transformers",
        "pipeline_tag": "sentence-similarity",
        "tags": ["sentence-transformers", "sentence-similarity", "stsdemo", "regression", f"loss:{loss}"],
    }
    base = hub_id(saved.get("base_model", ""))
    if base:
        meta["base_model"] = base
    return "---\n" + _yaml(meta) + "\n---"


def details(run: dict, saved: dict, hf_config: dict | None) -> list[str]:
    """Model Details: base, length, dimensions, target, scheme, how the encoder is stored."""
    base = saved.get("base_model", "")
    link = (
        f"[{hub_id(base)}](https://huggingface.co/{hub_id(base)})"
        if hub_id(base)
        else f"`{shown('model', base)}`"
    )
    scheme = saved.get("scheme", {})
    gap = scheme.get("gap", 1.0)
    nodes = ", ".join(f"{c} = {i * gap:g}" for i, c in enumerate(scheme.get("categories", [])))
    lines = [
        "## Model Details",
        "",
        "### Model Description",
        "- **Model Type:** Sentence Transformer with an stsdemo regression head (Zhang & Li 2024)",
        f"- **Base model:** {link}",
        f"- **Maximum Sequence Length:** {saved.get('max_length')} tokens",
    ]
    if hf_config and hf_config.get("hidden_size"):
        lines.append(f"- **Output Dimensionality:** {hf_config['hidden_size']} dimensions")
    lines += [
        "- **Similarity Function:** Cosine Similarity",
        f"- **Prediction:** {TARGETS.get(saved.get('target', 'head'), saved.get('target'))}"
        + (", a classifier over the nodes" if saved.get("classification") else ""),
        f"- **Label scheme:** {scheme.get('name', '?')} (nodes {nodes}; gap d = {gap:g})",
        f"- **Encoder weights stored:** {STORAGE.get(save_format.stored_encoder(saved), '?')}",
        "- **Paper:** [arXiv 2406.05326](https://arxiv.org/abs/2406.05326)",
    ]
    return lines


def usage(saved: dict, hf_config: dict | None) -> list[str]:
    """How to load the folder in sentence-transformers and in stsdemo."""
    dim = (hf_config or {}).get("hidden_size")
    pair = f'"{EXAMPLE[0]}", "{EXAMPLE[1]}"'
    lines = ["## Usage", "", "### Direct Usage (Sentence Transformers)", ""]
    if save_format.stored_encoder(saved) in ("full", "fp16"):
        lines += [
            "```python",
            "from sentence_transformers import SentenceTransformer",
            "",
            'model = SentenceTransformer("path/to/this/folder")',
            "sentences = [" + ", ".join(f'"{s}"' for s in EXAMPLE) + "]",
            "embeddings = model.encode(sentences)",
            "print(embeddings.shape)",
            f"# [3, {dim}]" if dim else "# [3, dimensions]",
            "similarities = model.similarity(embeddings, embeddings)",
            "```",
            "",
            "sentence-transformers reads the encoder with mean pooling; the head below is stsdemo's.",
        ]
    else:
        lines += [
            f"This folder stores {STORAGE[save_format.stored_encoder(saved)]}, which "
            "`SentenceTransformer(folder)` cannot read on its own. `python -m stsdemo export path/to/this/folder "
            "out` writes the full weights; `out` then loads with "
            '`SentenceTransformer("out")`.'
        ]
    lines += [
        "",
        "### Usage in stsdemo (the similarity on the label line, its category and the cosine)",
        "",
        "```python",
        "from stsdemo.model import SiameseRegressor",
        "from stsdemo.scoring import score_pair",
        "",
        'model = SiameseRegressor.load("path/to/this/folder")',
        f"print(score_pair(model, {pair}).to_dict())",
        "```",
        "",
        "```bash",
        f"python -m stsdemo score {pair.replace(', ', ' ')} --model path/to/this/folder",
        "```",
    ]
    return lines


def _row_name(name: str) -> str:
    """A senteval.json row by what it measures: 'cosine', 'prediction' or 'on the right node %'."""
    if name.endswith(")") and " (" in name:
        return name[name.rindex(" (") + 2 : -1]
    return "cosine"


def evaluation(tests: dict | None, snli: dict | None) -> list[str]:
    """Evaluation: the 7 STS tasks (Spearman x100; node accuracy in %) and SNLI test, as recorded."""
    if not tests and not snli:
        return []
    lines = ["## Evaluation", "", "### Metrics"]
    if tests:
        columns = [t for t in TASKS if any(t in row for row in tests.values())] + ["Avg."]
        lines += [
            "",
            "#### Semantic Similarity: SentEval STS12-16, STS-B test, SICK-R test",
            "* Spearman x100 of the cosine of the embeddings (SimCSE's protocol; STS12-16 'all'), of the "
            "prediction, and the share of pairs whose prediction is nearest the gold label's node",
            "",
            "| Metric | " + " | ".join(TABLE_NAMES.get(c, c) for c in columns) + " |",
            "|:--" + "|--:" * len(columns) + "|",
        ]
        for name, row in tests.items():
            cells = [f"{row[c]:.2f}" if isinstance(row.get(c), (int, float)) else "–" for c in columns]
            lines.append(f"| {_row_name(name)} | " + " | ".join(cells) + " |")
    if snli and isinstance(snli.get("test"), dict):
        test = snli["test"]
        lines += [
            "",
            "#### Natural Language Inference: SNLI test",
            "",
            "| Metric | Value |",
            "|:--|--:|",
            f"| pairs | {test.get('pairs', '–'):,} |",
            f"| accuracy (%) | {test.get('accuracy', float('nan')):.2f} |",
            f"| macro-F1 (%) | {test.get('macro_f1', float('nan')):.2f} |",
        ]
    return lines


def training(run: dict, family: str) -> list[str]:
    """Training Details: data per stage (its filter in the set's name), the loss with k and x0, the settings."""
    config = run.get("config", {})
    lines = ["## Training Details", "", "### Training Data and Loss", ""]
    for stage in run.get("stages", []):
        loss = stage.get("loss")
        shape = f" with k = {stage['k']:g}, x0 = {stage['x0']:g}" if stage.get("k") is not None else ""
        lines.append(
            f"* Stage {stage['stage']} ({stage['name']}): {stage['pairs']:,} pairs of "
            f"`{shown('data', stage['data'])}`, {stage['steps']:,} steps; loss "
            f"{LOSSES[loss].label if loss in LOSSES else loss}{shape}"
        )
    if not run.get("stages"):
        k = (
            run_k(config.get("loss", "sk2"), config.get("k"), family)
            if config.get("loss") in LOSSES
            else None
        )
        lines.append(
            f"* Data `{shown('data', config.get('data', ''))}`; loss `{config.get('loss')}`"
            + (f" with k = {k:g}, x0 = {config.get('x0', 0):g}" if k is not None else "")
        )
    if str(config.get("data", "")).startswith("stsb+sick"):
        lines.append(
            "* `stsb+sick` is the paper's tune data (Appendix A): STS-B train + SICK-R train less every pair "
            "that appears in one of the seven test sets"
        )
    if config.get("snap_labels"):
        lines.append("* Training labels rounded to the nearest node, as the paper's tune data was")
    lines += ["", "### Training Hyperparameters", "", "#### Non-Default Hyperparameters", ""]
    lines += [f"- `{name}`: {value}" for name, value in non_default(config, family).items()] or ["- none"]
    lines += ["", "#### All Hyperparameters", "<details><summary>Click to expand</summary>", ""]
    lines += [f"- `{name}`: {shown(name, value)}" for name, value in config.items() if name not in HIDDEN]
    lines += ["", "</details>"]
    return lines


def training_log(run: dict) -> list[str]:
    """The dev curve (every evaluation; the kept checkpoint in bold) and how the run ended."""
    config, curve = run.get("config", {}), run.get("dev_curve", [])
    best = StageStep.parse(run["best_step"]) if run.get("best_step") else None
    dev = {"stsb": "STS-B dev", "snli-heldout": "the SNLI dev pairs held out of snli-train"}
    dev_name = dev.get(config.get("dev_data", "stsb"), config.get("dev_data"))
    pairs = f", {run['dev_pairs']:,} pairs" if run.get("dev_pairs") else ""
    lines = [
        "",
        "### Training Logs",
        "",
        f"Checkpoints chosen on {dev_name}{pairs}, by the {config.get('select_by', 'cosine')} metric; step 0 of "
        "stage 1 is the starting model.",
    ]
    if curve:
        lines += [
            "",
            "| Stage | Step | Dev Spearman (cosine) | Dev Spearman (prediction) | Dev on the right node (%) |",
            "|--:|--:|--:|--:|--:|",
        ]
        for point in curve:
            cells = [
                str(point["stage"]),
                str(point["step"]),
                f"{point['dev_cosine']:.2f}",
                f"{point['dev_head']:.2f}",
                f"{point['dev_accuracy']:.1f}",
            ]
            bold = best == (point["stage"], point["step"])
            lines.append("| " + " | ".join(f"**{c}**" if bold else c for c in cells) + " |")
        lines.append("* The bold row denotes the saved checkpoint.")
    elif best is not None:
        dev_score = score_text(run.get("best_dev"), config.get("select_by", "cosine"))
        lines += ["", f"Kept: step {best}, dev {dev_score} (this run's record holds no curve)."]
    if run.get("outcome"):
        ending = f"{run['outcome']} after {run.get('steps', 0):,} steps" + (
            f": {run['message']}" if run.get("message") else ""
        )
        lines += ["", f"The run {ending}."]
    return lines


def _reading(value) -> str:
    """A recorded reading to two decimals; a dash for one the record holds as null (a NaN)."""
    return f"{value:.2f}" if isinstance(value, (int, float)) else "–"


def _data_set(data: dict) -> str:
    """A Playground data set as a card names it: its title (a built-in's, an uploaded file's name) and its name."""
    return f"{data['title']} (`{data.get('name')}`)" if data.get("title") else f"`{data.get('name')}`"


def playground_training(run: dict) -> list[str]:
    """Training Details of a Playground head (:mod:`stsdemo.playground.export_run`): its data sets, its twin's
    loss and seed, the step its selection set chose with the readings there, and every Playground setting."""
    config, data, twin = run.get("config", {}), run.get("data", {}), run.get("twin", {})
    pairs, selection = data.get("pairs", {}), run.get("selection", {})
    loss = LOSSES[twin["loss"]].label if twin.get("loss") in LOSSES else twin.get("loss")
    lines = [
        "## Training Details",
        "",
        "### Training Data and Loss",
        "",
        "* Only the head was trained, on the frozen encoder's mean-pooled embeddings: the encoder's weights are "
        "the base model's",
        f"* Data {_data_set(data)}: {pairs.get('training', 0):,} training pairs, {pairs.get('selection', 0):,} "
        f"selection pairs (which chose the step), {pairs.get('report', 0):,} report pairs with clean labels "
        "(which chose nothing)",
        f"* Loss {loss} with k = {twin.get('k', 0):g}, x0 = {twin.get('x0', 0):g}: the {twin.get('name')} twin "
        f"({twin.get('label')}) of seed {run.get('seed')}",
        "",
        "### Training Logs",
        "",
        f"Kept: step {run.get('best_step', 0):,} of {run.get('steps', 0):,}, the best on the selection set by "
        f"{selection.get('metric')} ({_reading(selection.get('value'))}). The report set there:",
        "",
        "| Metric | Value |",
        "|:--|--:|",
    ]
    labels = run.get("metric_labels", {})
    for name, value in run.get("report", {}).items():
        label = labels.get(name, name).replace("|", r"\|")  # a bare | would end the table cell
        lines.append(f"| {label} | {_reading(value)} |")
    lines += ["", "### Playground Settings", "<details><summary>Click to expand</summary>", ""]
    lines += [f"- `{name}`: {shown(name, value)}" for name, value in config.items()] + ["", "</details>"]
    return lines


def card_text(
    run: dict, saved: dict, tests: dict | None = None, snli: dict | None = None, hf_config: dict | None = None
) -> str:
    """The card of a run from its records: ``run`` (run.json), ``saved`` (stsdemo.json), the test records if
    any, and the encoder's transformers config (for its width and family)."""
    config = run.get("config", {})
    family = encoder_family((hf_config or {}).get("model_type"))
    base = hub_id(saved.get("base_model", "")) or shown("model", saved.get("base_model", ""))
    loss = LOSSES[config["loss"]].short if config.get("loss") in LOSSES else config.get("loss", "?")
    data, line = shown("data", config.get("data", "")), saved.get("scheme", {}).get("name", "?")
    what = (
        "it maps sentences to vectors compared by cosine, and its stsdemo head predicts the similarity on the"
    )
    if run.get("kind") == PLAYGROUND_RUN:
        title = f"{base.split('/')[-1]} with a Playground head: {run.get('twin', {}).get('label')}"
        intro = (
            f"A [sentence-transformers](https://www.SBERT.net) model: {base}, frozen, with the paper's linear "
            f"head on [u, v, |u-v|] trained on its embeddings of {_data_set(run.get('data', {}))} in the stsdemo "
            f"Playground (Zhang & Li 2024): {what} {line} line."
        )
        trained = playground_training(run)
    else:
        title = f"{base.split('/')[-1]} fine-tuned with {loss}"
        intro = (
            f"A [sentence-transformers](https://www.SBERT.net) model fine-tuned from {base} on `{data}` as a "
            f"regression on the label line (Zhang & Li 2024): {what} {line} line."
        )
        trained = training(run, family) + training_log(run)
    lines = [front_matter(run, saved), "", f"# {title} (stsdemo)", "", intro, ""]
    lines += details(run, saved, hf_config) + [""] + usage(saved, hf_config) + [""]
    lines += evaluation(tests, snli) + [""] + trained
    versions = run.get("versions")
    if versions:
        lines += ["", "### Framework Versions"] + [f"- {name}: {value}" for name, value in versions.items()]
    lines += [
        "",
        "## Citation",
        "",
        "### BibTeX",
        "",
        "#### Translated ReLU and Smooth K2 Loss",
        "```bibtex",
        CITATION,
        "```",
        "",
        "#### Sentence Transformers",
        "```bibtex",
        SBERT_CITATION,
        "```",
        "",
    ]
    return "\n".join(lines)


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_card(folder: str | Path) -> Path | None:
    """Write ``README.md`` into a saved run's ``folder`` from its records; None (nothing written) when it holds
    no ``run.json`` or no ``stsdemo.json``."""
    folder = Path(folder)
    run, saved = _read(folder / save_format.RUN_RECORD), _read(folder / save_format.CONFIG_NAME)
    if run is None or saved is None:
        return None
    try:
        hf_config = start_encoder_config(str(folder))
    except (InputError, OSError, ValueError):  # an unresolvable base: the card leaves out the width
        hf_config = None
    text = card_text(
        run,
        saved,
        _read(folder / save_format.TEST_RECORD),
        _read(folder / save_format.SNLI_RECORD),
        hf_config,
    )
    with atomic_write(folder / save_format.CARD_NAME) as handle:
        handle.write(text)
    return folder / save_format.CARD_NAME
