"""Library warnings the project cannot fix at their cause, filtered exactly (category, module and message).

Each entry names the warning, where it is raised and why the project cannot avoid it; everything else is
left alone. :func:`install` runs once when :mod:`stsdemo` is imported. (A filter rather than
``warnings.catch_warnings()`` around the call: that context manager changes process-wide state and is not
safe in the app's threads.)

Fixed at their cause instead, so not listed here: the DataLoader's "``pin_memory`` ... no accelerator"
(``bench/evidence/quality.py`` asks for pinned memory only on a GPU).
"""

from __future__ import annotations

import warnings

# (category, module regex, message regex, why)
FILTERS = (
    (
        FutureWarning,
        r"transformers\.modeling_utils",
        r"`is_gradient_checkpointing` is deprecated",
        "peft (0.13 ... 0.21) reads the deprecated alias model.is_gradient_checkpointing on every LoRA adapter it "
        "attaches (PeftModel.__init__), i.e. on every load of the shipped scorer; transformers 5 warns on each read.",
    ),
    # pandas 3 (Pandas4Warning, a DeprecationWarning) on Gradio 6.31's queue analytics (Queue._get_df), which
    # runs every few events of any app; shown under pytest and -W default.
    (
        DeprecationWarning,
        r"gradio\.queueing",
        r"'future\.no_silent_downcasting' is deprecated",
        "Gradio's queue sets a pandas option that pandas 3 deprecates (gradio/queueing.py, Queue._get_df).",
    ),
    (
        DeprecationWarning,
        r"gradio\.queueing",
        r"The copy keyword is deprecated",
        "Gradio's queue calls DataFrame.infer_objects(copy=False), deprecated in pandas 3 (Queue._get_df).",
    ),
)


def install() -> None:
    """Add the filters (idempotent: ``warnings.filterwarnings`` drops an identical earlier entry)."""
    for category, module, message, _ in FILTERS:
        warnings.filterwarnings("ignore", message=message, category=category, module=module)


def pytest_filters() -> list[str]:
    """The same filters as pytest's ``filterwarnings`` lines (``action:message:category:module``)."""
    return [f"ignore:{message}:{category.__name__}:{module}" for category, module, message, _ in FILTERS]
