"""Command line: ``python -m stsdemo train|eval|score|export|site|playground|pin|filter ...``.

Bad input ends with one line ``stsdemo: error: ...`` on stderr and exit status 2, never a traceback; it is
checked before any model is loaded where it can be. A run that ends early on its own (out of memory) prints one
line and exits with status 1, keeping its best checkpoint. Ctrl-C or SIGTERM during ``train`` ends the run
after the current step (the best checkpoint is kept); a second Ctrl-C aborts at once.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import typing
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path

from .errors import InputError

if typing.TYPE_CHECKING:
    from .serving.budget import Host

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the usage stays available under --help)."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def _add_config_options(parser: argparse.ArgumentParser) -> None:
    """One option per TrainConfig field, with its declared help, limits and paper value (stsdemo.config),
    so the command line can never drift from the config."""
    from .config import PRESETS, TrainConfig, describe, help_line, preset_label

    presets = "; ".join(f"{name}: {preset_label(name)}" for name in PRESETS)
    parser.add_argument(
        "--preset",
        choices=list(PRESETS),
        metavar="PRESET",
        help=f"start from a preset; the options below override it. {presets}".replace("%", "%%"),
    )
    hints = typing.get_type_hints(TrainConfig)
    for item in fields(TrainConfig):
        spec = describe(item.name)
        flag = "--" + item.name.replace("_", "-")
        kind = hints[item.name]
        base = next((t for t in typing.get_args(kind) if t is not type(None)), kind)
        if base is bool:
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=None, help=help_line(item.name)
            )
        else:
            # Losses take readable aliases too (smooth-k2, translated-relu), so preflight() checks them.
            choices = spec["choices"] if item.name != "loss" else None
            parser.add_argument(
                flag,
                type=base,
                default=None,
                choices=choices,
                metavar=item.name.upper(),
                help=help_line(item.name),
            )


def _config_from_args(args):
    from .config import TrainConfig

    given = {f.name: getattr(args, f.name) for f in fields(TrainConfig) if getattr(args, f.name) is not None}
    return TrainConfig.from_preset(args.preset, **given) if args.preset else TrainConfig(**given)


@contextmanager
def _graceful_stop(stop: threading.Event):
    """SIGINT/SIGTERM set ``stop`` (the run ends after its current step); a second SIGINT aborts."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def handler(signum, frame):
        if stop.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stop.set()
        print(
            f"stsdemo: {signal.Signals(signum).name}: stopping after the current step "
            "(the best checkpoint is kept; Ctrl-C again to abort)",
            file=sys.stderr,
            flush=True,
        )

    for sig in previous:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def cmd_train(args) -> int:
    from .evaluate import format_table
    from .events import DoneEvent, FinalEvalEvent, Outcome
    from .final_eval import TestScores
    from .preflight import preflight
    from .save_format import is_scorer
    from .serving.budget import HOST
    from .workflow import train_and_evaluate

    config = preflight(_config_from_args(args))
    done, rows = None, None
    stop = threading.Event()
    with _graceful_stop(stop):
        for event in train_and_evaluate(
            config, stop, evaluate=not args.no_final_eval, host=args.host or HOST
        ):
            print(json.dumps(event.to_dict()), flush=True)
            if isinstance(event, DoneEvent):
                done = event
            elif isinstance(event, FinalEvalEvent) and event.results is not None:
                scores = TestScores(event.results, event.prediction, event.node_accuracy, event.node_from)
                rows = scores.rows(Path(done.checkpoint).name)
    if done is not None and done.outcome is Outcome.FAILED:
        kept = is_scorer(done.checkpoint)
        where = f"best checkpoint kept at {done.checkpoint}" if kept else "no checkpoint was written"
        print(f"stsdemo: error: the run ended early: {done.message} ({where})", file=sys.stderr)
        return EXIT_FAILED
    if rows:
        print(format_table(rows))
    return 0


def cmd_eval(args) -> int:
    from . import mteb_format
    from .data import senteval_test_sets
    from .evaluate import TASKS, format_table
    from .final_eval import reading_for, scoring_steps
    from .model import SiameseRegressor

    tasks = args.tasks.split(",") if args.tasks else TASKS
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise InputError("cli_unknown_tasks", unknown=", ".join(unknown), tasks=", ".join(TASKS))
    mteb_out = mteb_format.check_output_folder(args.mteb_out) if args.mteb_out else None
    every = senteval_test_sets()
    sets = {task: every[task] for task in tasks}
    rows = {}
    for name in args.models:
        model = SiameseRegressor.load(name)
        reading = reading_for(model.scheme.categories, None) if args.head else "cosine"
        *_, (_, scores) = scoring_steps(model, sets, reading)
        rows.update(scores.rows(name or "all-MiniLM-L6-v2"))
        if mteb_out is not None:
            files = mteb_format.mteb_files(
                name, scores.cosine, {task: len(pairs) for task, pairs in sets.items()}
            )
            written = mteb_format.write_mteb_results(mteb_out, files)
            print(
                f"stsdemo: MTEB-format results of {name or 'all-MiniLM-L6-v2'} in {written}", file=sys.stderr
            )
    print(json.dumps(rows, indent=2) if args.json else format_table(rows, tasks=tuple(tasks)))
    return 0


def cmd_export(args) -> int:
    from .export import export_scorer

    print(export_scorer(args.model, args.out, fp16=args.fp16))
    return 0


def cmd_score(args) -> int:
    from . import environment
    from .data import clean_text, load_csv
    from .labels import get_scheme
    from .model import SiameseRegressor
    from .model_source import saved_scheme
    from .save_format import is_scorer
    from .scoring import MAX_CSV_ROWS, check_output_path, score_pair, score_pairs

    # Everything the user typed is checked first: a bad sentence, file or path fails in well under a second,
    # before the model is loaded.
    if args.model is None:  # the shipped scorer of the scheme's line, wherever the command is run from
        shipped = environment.shipped_scorer_dir(args.scheme)
        args.model = str(shipped) if is_scorer(shipped) else ""
    scheme = get_scheme(args.scheme) if args.scheme else None
    line_scheme = scheme or saved_scheme(args.model)
    if args.csv:
        if not args.out:
            raise InputError("cli_csv_needs_out")
        out = check_output_path(args.out)
        pairs = load_csv(args.csv, line_scheme, max_rows=MAX_CSV_ROWS, require_label=False)
        model = SiameseRegressor.load(args.model)
        print(score_pairs(model, pairs, out, scheme))
        if pairs.notice:
            print(f"stsdemo: note: {pairs.notice}", file=sys.stderr)
        return 0
    if args.sentence1 is None or args.sentence2 is None:
        raise InputError("cli_two_sentences")
    clean_text(args.sentence1, "sentence 1")
    clean_text(args.sentence2, "sentence 2")
    model = SiameseRegressor.load(args.model)
    print(json.dumps(score_pair(model, args.sentence1, args.sentence2, scheme).to_dict()))
    return 0


def cmd_filter(args) -> int:
    from .data import leakage_report, load_training_data, write_pairs

    print(json.dumps(leakage_report(), indent=2))
    if args.out:
        print(write_pairs(load_training_data("stsb+sick"), args.out))
    return 0


def cmd_site(args) -> int:
    from .static_site import write_site

    folder = Path(args.folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())) and not args.force:
        raise InputError("cli_folder_not_empty", folder=folder)
    written = write_site(folder)
    print(
        json.dumps(
            {
                "folder": str(folder),
                "bytes": written["bytes"],
                "gzip_bytes": written["gzip_bytes"],
                "files": len(written["files"]),
            }
        )
    )
    print(
        f"stsdemo: serve it with `python -m http.server -d {folder}` and open http://127.0.0.1:8000/, or publish "
        "the folder as a static Hugging Face Space (its README.md carries the front matter)",
        file=sys.stderr,
    )
    return 0


def _add_playground_options(parser: argparse.ArgumentParser) -> None:
    """One option per PlaygroundConfig setting, with its declared help (stsdemo.playground.config)."""
    from .playground.config import PlaygroundConfig, argument_line
    from .playground.presets import BY_NAME

    parser.add_argument(
        "--preset", choices=sorted(BY_NAME), help="start from a story preset; the options below override it"
    )
    parser.add_argument(
        "--every",
        type=int,
        default=None,
        metavar="STEPS",
        help="steps between two readings (default 250, as a preset's records)",
    )
    parser.add_argument("--json", action="store_true", help="print the readings as JSON")
    hints = typing.get_type_hints(PlaygroundConfig)
    for item in fields(PlaygroundConfig):
        if item.name in ("model", "speed"):  # the page's: the command line runs the pinned data
            continue
        flag = "--" + item.name.replace("_", "-")
        text = argument_line(item.name).replace("%", "%%")
        if hints[item.name] is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=text)
        else:
            parser.add_argument(
                flag, type=hints[item.name], default=None, metavar=item.name.upper(), help=text
            )


def cmd_playground(args) -> int:
    from dataclasses import replace

    from .playground.config import BUILT_IN_DATA, PlaygroundConfig
    from .playground.presets import BY_NAME
    from .playground.run import CHECKPOINT_EVERY, pinned_source, run_checkpoints

    given = {
        f.name: getattr(args, f.name)
        for f in fields(PlaygroundConfig)
        if getattr(args, f.name, None) is not None
    }
    base = BY_NAME[args.preset].config() if args.preset else PlaygroundConfig()
    config = replace(base, **given)  # checked against the declarations: InputError
    if config.data not in BUILT_IN_DATA:
        raise InputError("cli_data", data=", ".join(BUILT_IN_DATA))
    every = CHECKPOINT_EVERY if args.every is None else args.every
    if not 1 <= every <= config.steps:
        raise InputError("cli_every", steps=config.steps, every=every)
    found = run_checkpoints(config, pinned_source(config.data), every=every)
    if args.json:
        print(json.dumps(found))
        return 0
    from .playground.metrics import READ_BY

    metric = READ_BY[config.data]
    print(
        f"{config.data} · {config.loss} x0 {config.x0:g} vs x0 0 · {config.seeds} seeds · buffer − none of {metric} "
        f"(mean ± se) · data sha256 {found['data_sha256'][:12]}"
    )
    for point in found["checkpoints"]:
        print(
            f"step {point['step']:>5,}: at this step {point['step_reading'][metric]['text']} "
            f"({point['step_reading'][metric]['verdict']}); stopped at its best "
            f"{point['best_reading'][metric]['text']} ({point['best_reading'][metric]['verdict']})"
        )
    return 0


def cmd_pin(args) -> int:
    from .playground.pinned import FOLDER, build

    record = build(args.model or None)
    for name, entry in record["sets"].items():
        print(
            f"{name}: sha256 {entry['sha256']} ({entry['bytes']:,} bytes, {entry['sentences']:,} sentences)"
        )
    print(
        f"stsdemo: wrote {FOLDER}; the Playground's records were made on the old files: run "
        "bench.evidence.presets and bench.evidence.payoff again",
        file=sys.stderr,
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import environment

    parser = OneLineParser(
        prog="stsdemo",
        description="STS as regression with Translated ReLU and Smooth K2 "
        "(Zhang & Li 2024, arXiv 2406.05326).",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    train = commands.add_parser(
        "train", help="fine-tune; prints one JSON line per event, then the 7-task table"
    )
    _add_config_options(train)
    train.add_argument("--no-final-eval", action="store_true", help="skip the 7-task evaluation at the end")
    train.set_defaults(run=cmd_train)

    evaluate = commands.add_parser(
        "eval", help="7-task SentEval table (STS12-16, STS-B, SICK-R) for models or runs"
    )
    evaluate.add_argument(
        "models", nargs="*", default=[""], help="hub ids, folders or saved runs (default: embedded)"
    )
    evaluate.add_argument("--tasks", help="comma-separated subset of STS12,...,SICKRelatedness")
    evaluate.add_argument("--json", action="store_true", help="print JSON instead of a table")
    evaluate.add_argument(
        "--head",
        action="store_true",
        help="also score the prediction (head or a*cos+b): Spearman and share on the right node",
    )
    evaluate.add_argument(
        "--mteb-out",
        metavar="DIR",
        help="also write MTEB-format results: DIR/<model>/<revision>/<task>.json and model_meta.json "
        "(the cosine scores of SentEval's test sets; see stsdemo.mteb_format)",
    )
    evaluate.set_defaults(run=cmd_eval)

    score = commands.add_parser("score", help="score a pair (float, category, cosine) or a CSV of pairs")
    score.add_argument("sentence1", nargs="?")
    score.add_argument("sentence2", nargs="?")
    score.add_argument(
        "--model",
        default=None,
        help="saved scorer, run or encoder (default: the shipped scorer, "
        f"{environment.default_scorer_dir()}; with --scheme nli the "
        f"shipped NLI scorer, {environment.nli_scorer_dir()})",
    )
    score.add_argument("--scheme", help="sts, nli or an ordered list 'a, b, c' (default: the model's)")
    score.add_argument("--csv", help="CSV/TSV with two sentence columns to score")
    score.add_argument("--out", help="where to write the scored CSV")
    score.set_defaults(run=cmd_score)

    export = commands.add_parser(
        "export",
        help="write a scorer with full encoder weights (a LoRA adapter merged), "
        "its run's records and model card, so it loads as "
        "SentenceTransformer(folder)",
    )
    export.add_argument("model", help="saved scorer or run")
    export.add_argument("out", help="folder to write")
    export.add_argument(
        "--fp16", action="store_true", help="store the encoder's weights in fp16 (half the size)"
    )
    export.set_defaults(run=cmd_export)

    site = commands.add_parser(
        "site",
        help="write the Playground as a static site (index.html, its engine, the "
        "pinned data sets, presets and map) that plays in the browser",
    )
    site.add_argument("folder", help="folder to write (new or empty)")
    site.add_argument("--force", action="store_true", help="write into a folder that is not empty")
    site.set_defaults(run=cmd_site)

    playground = commands.add_parser(
        "playground",
        help="run the Playground's engine (the page's, on the pinned "
        "data) and print both readings at its checkpoints",
    )
    _add_playground_options(playground)
    playground.set_defaults(run=cmd_playground)

    pin = commands.add_parser(
        "pin",
        help="embed the built-in Playground data sets again (for another encoder) into "
        "the pinned files every run reads, and print their new sha256",
    )
    pin.add_argument(
        "--model", default=None, help="encoder: hub id or folder (default: the embedded all-MiniLM-L6-v2)"
    )
    pin.set_defaults(run=cmd_pin)

    filt = commands.add_parser(
        "filter", help="Appendix A leakage filter: counts, and optionally the filtered pairs"
    )
    filt.add_argument("--out", help="write the filtered STS-B + SICK-R train pairs as TSV")
    filt.set_defaults(run=cmd_filter)
    return parser


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def main(argv=None, host: Host | None = None) -> int:
    """Run the command ``argv`` names; its exit status. ``host``: the machine and hub a training run is held to
    (:class:`stsdemo.serving.budget.Host`; None: this machine's and the hub's, imported only by the commands that
    train), carried in the parsed arguments."""
    args = build_parser().parse_args(argv, argparse.Namespace(host=host))
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # loading and saving would draw bars between the JSON lines and errors
    try:
        return args.run(args)
    except InputError as error:
        print(f"stsdemo: error: {_one_line(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:  # a file that cannot be written, a full disk: the system's message, one line
        print(f"stsdemo: error: {_one_line(error)}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("stsdemo: interrupted", file=sys.stderr)
        return 130
