"""Every cap the server holds its visitors to, declared once: work, time, memory, disk, queue, request bodies and
files. Each has its default (sized for a free Hugging Face Space: 2 CPU cores, 16 GB, 50 GB of disk, shared by
every visitor), its unit and, where the operator may change it, its environment variable. Whatever enforces a
cap reads it here (:func:`value`): the queue (:mod:`.fair_queue`), the request gate
(:class:`.gradio_seam.StrictCalls`), the upload cap (Gradio's ``max_file_size``), each kind of file, the fine-tune
and Compare estimates (:mod:`.budget`, whose :class:`~stsdemo.config.WorkBudget` takes its defaults from here), the
run's wall clock, the disk totals and how long files stay (:mod:`.session_files`) and the Playground API's work
(``playground_work``; its cost model is the Playground's own).

Pure declarations: nothing heavy imported, nothing read but the environment. ``python -m stsdemo.serving.caps`` prints
the table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

UNITS = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}


@dataclass(frozen=True)
class Cap:
    """One cap: its default, its unit ("bytes" are written with b, kb, mb or gb), what it bounds, and the
    environment variable that sets it (None: fixed here)."""

    default: float
    unit: str
    help: str
    variable: str | None = None


CAPS = {
    # ---- the queue: no visitor can take it from the others ------------------------------------------------------
    "events_per_session": Cap(
        4,
        "events",
        "queued or running events of one browser session, every endpoint together; more are refused at once",
        "STSDEMO_EVENTS_PER_SESSION",
    ),
    "events_per_address": Cap(
        40,
        "events",
        "queued or running events of one client address (every "
        "session at it; an IPv6 address's /64), where the address is "
        "known: sized for a class of 30 on one Wi-Fi",
        "STSDEMO_EVENTS_PER_ADDRESS",
    ),
    "queue_size": Cap(
        96,
        "events",
        "events waiting in Gradio's queue, every visitor together: more than one "
        "address's places, so a full address leaves room for the others",
        "STSDEMO_QUEUE_SIZE",
    ),
    "training_slots": Cap(1, "runs", "fine-tunes (or Compare jobs) training at once", "STSDEMO_MAX_TRAINING"),
    "training_waiting": Cap(
        4, "runs", "fine-tunes that may wait for a slot (one per visitor)", "STSDEMO_MAX_WAITING"
    ),
    "training_per_address": Cap(
        2,
        "runs",
        "fine-tunes of one client address training or waiting (its sessions together, one each)",
        "STSDEMO_TRAINING_PER_ADDRESS",
    ),
    # ---- what a request may carry ---------------------------------------------------------------------------------
    "request_body_bytes": Cap(
        1024**2,
        "bytes",
        "body of any request but a file upload, refused unread beyond (413)",
        "STSDEMO_MAX_BODY",
    ),
    "upload_bytes": Cap(
        20 * 1024**2, "bytes", "any one uploaded file (Gradio's max_file_size)", "STSDEMO_MAX_UPLOAD"
    ),
    "visitor_upload_bytes": Cap(
        200 * 1024**2,
        "bytes",
        "files one client address has in Gradio's upload "
        "folder (each removed gradio_keep_seconds after it "
        "came)",
        "STSDEMO_VISITOR_UPLOADS",
    ),
    # ---- each kind of file --------------------------------------------------------------------------------------
    "score_file_bytes": Cap(20 * 1024**2, "bytes", "a CSV/TSV to score (Score tab)"),
    "score_file_rows": Cap(5_000, "rows", "rows scored from one file (Score tab)"),
    "score_file_tokens": Cap(
        1_500_000,
        "tokens",
        "tokens one scoring file may embed (both sentences of every "
        "row, each cut to the model's max length): about 2 min on 2 CPU "
        "cores for the shipped MiniLM scorer",
    ),
    "training_file_bytes": Cap(20 * 1024**2, "bytes", "a CSV/TSV of labelled pairs to fine-tune on"),
    "playground_file_bytes": Cap(5 * 1024**2, "bytes", "a CSV/TSV of labelled pairs for the Playground"),
    "playground_file_pairs": Cap(5_000, "pairs", "labelled pairs the Playground embeds from one file"),
    "playground_uploads": Cap(
        30,
        "uploads",
        "Playground uploads kept for one client address, one a "
        "session (past it, the address's least recently used go)",
        "STSDEMO_PLAYGROUND_UPLOADS",
    ),
    "playground_kept_bytes": Cap(
        50 * 1024**2,
        "bytes",
        "Playground uploads kept for one client address, their files together (past it, the same)",
    ),
    # ---- work, time and memory ----------------------------------------------------------------------------------
    "train_memory_share": Cap(
        0.4,
        "share",
        "of this machine's memory (on a GPU: of the GPU's) one run may take at "
        "its peak, divided among the training slots",
        "STSDEMO_TRAIN_MEMORY_SHARE",
    ),
    "train_minutes": Cap(
        15.0,
        "minutes",
        "estimated minutes one fine-tune job (a Compare: all its runs together) "
        "may train, dev and final evaluations included",
        "STSDEMO_TRAIN_MINUTES",
    ),
    "wall_clock_factor": Cap(
        2.0,
        "times",
        "a run is stopped, its best checkpoint kept, at this many times the "
        "job's estimate (at least train_minutes): a wrong estimate cannot hold "
        "the trainer",
        "STSDEMO_WALL_CLOCK_FACTOR",
    ),
    "model_millions": Cap(
        150.0,
        "M parameters",
        "largest hub model a visitor may name (the allow list excepted)",
        "STSDEMO_MODEL_MILLIONS",
    ),
    "playground_work": Cap(
        4e11, "multiply-adds", "one Playground API call (its cost model: the Playground's)"
    ),
    "playground_seconds": Cap(
        30.0,
        "seconds",
        "wall clock one Playground API or MCP call may train: past it the "
        "run stops and answers at the step it reached, saying so",
        "STSDEMO_PLAYGROUND_SECONDS",
    ),
    "embedding_pairs": Cap(20_000, "pairs", "pairs of a data set the Playground's encoder may embed"),
    # ---- disk ---------------------------------------------------------------------------------------------------
    "session_disk_bytes": Cap(
        1024**3,
        "bytes",
        "one visitor's runs (a default run's checkpoint: about 92 MB)",
        "STSDEMO_SESSION_DISK",
    ),
    "total_disk_bytes": Cap(
        20 * 1024**3,
        "bytes",
        "every visitor's runs together (over it, the sessions idle longest go first)",
        "STSDEMO_TOTAL_DISK",
    ),
    "gradio_folder_bytes": Cap(
        2 * 1024**3,
        "bytes",
        "uploads in Gradio's folder (GRADIO_TEMP_DIR), every visitor's together; cleared at start-up",
        "STSDEMO_GRADIO_FOLDER",
    ),
    "hub_cache_bytes": Cap(
        5 * 1024**3,
        "bytes",
        "hub models downloaded for visitors, beside the runs' total "
        "(over it, the least recently used go first)",
        "STSDEMO_HUB_CACHE",
    ),
    # ---- how long files stay (the sweep: stsdemo.serving.session_files) ----------------------------------------------
    "session_keep_seconds": Cap(
        24 * 3600, "seconds", "a session untouched for longer is removed, its runs too"
    ),
    "idle_eviction_seconds": Cap(
        3600,
        "seconds",
        "while every session's runs take more than total_disk_bytes, "
        "sessions untouched for longer go, idle longest first",
    ),
    "sweep_every_seconds": Cap(60, "seconds", "how often the sweep removes what is past its time"),
    "handed_over_seconds": Cap(
        60, "seconds", "a download staged this long ago has been copied into Gradio's cache, and is removed"
    ),
    "gradio_sweep_seconds": Cap(60, "seconds", "how often Gradio deletes its old copies of handed-out files"),
    "gradio_keep_seconds": Cap(
        600,
        "seconds",
        "Gradio's copies of handed-out files, and uploads, older "
        "than this are deleted (a handed-over zip stays downloadable "
        "a while)",
    ),
}


def size_bytes(variable: str, text: str) -> int:
    """A size written as Gradio reads it (``20mb``; 1 kb = 1024 bytes) in bytes; ``variable``: where it was
    written, named in the ValueError."""
    text = text.strip().lower().replace(" ", "")
    digits = len(text) - len(text.lstrip("0123456789"))
    number, unit = text[:digits], text[digits:] or "b"
    if not number or unit not in UNITS:
        raise ValueError(
            f"{variable}={text!r}: expected a whole number and a unit (b, kb, mb, gb), e.g. 20mb"
        )
    return int(number) * UNITS[unit]


def value(name: str) -> float:
    """Cap ``name`` in force: its environment variable where set (a size with its unit, a count as a whole
    number, a share or a number of minutes as a positive number), else its default; ValueError naming the
    variable for a value it cannot be."""
    cap = CAPS[name]
    text = os.environ.get(cap.variable, "").strip() if cap.variable else ""
    if not text:
        return cap.default
    if cap.unit == "bytes":
        return size_bytes(cap.variable, text)
    if isinstance(cap.default, int):
        if not text.isdigit():
            raise ValueError(f"{cap.variable}={text!r}: expected a whole number >= 0")
        return int(text)
    try:
        number = float(text)
    except ValueError:
        number = float("nan")
    if not 0 < number < float("inf") or (cap.unit == "share" and number > 1):
        bound = "in (0, 1]" if cap.unit == "share" else "> 0"
        raise ValueError(f"{cap.variable}={text!r}: expected a number {bound}")
    return number


def size_text(size: float) -> str:
    """A size in bytes for people: ``20 MB``."""
    for unit in ("GB", "MB", "KB"):
        if size >= UNITS[unit.lower()]:
            return f"{round(size / UNITS[unit.lower()], 2):g} {unit}"
    return f"{size:.0f} bytes"


def wall_clock_seconds() -> float:
    """The wall-clock limit of one job once it trains (a Compare: all its runs): ``wall_clock_factor`` times the
    minutes a job's estimate may take; past it the run stops, its best checkpoint kept."""
    return value("wall_clock_factor") * value("train_minutes") * 60


def table() -> str:
    """Every cap with its value in force, one a line."""
    lines = []
    for name, cap in CAPS.items():
        amount = value(name)
        shown = size_text(amount) if cap.unit == "bytes" else f"{amount:,g} {cap.unit}"
        lines.append(f"{name:22} {shown:>18}  {cap.variable or '(fixed)':28} {cap.help}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
