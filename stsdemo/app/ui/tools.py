"""The endpoints an agent uses: scoring a pair, the losses at a point, and a Playground run (the buffer against
its twin over seeds). Answers are JSON text (no figures), public in the API (``/score_pair``, ``/loss_at``,
``/playground``) and the only tools of the MCP server (``python app.py --mcp`` or ``STSDEMO_MCP=1``).

Gradio makes every public endpoint an MCP tool named after its function, described by the function's
docstring (the text before ``Args:``; each argument's line under ``Args:`` describes that argument). The
app's other endpoints (the tabs' /score with its figure, /train, /zip_run, ...) stay in the API but are kept
off the tool list (:func:`stsdemo.serving.gradio_seam.tools_only`), so an agent sees three tools that answer in
plain data. Each reads its arguments by their annotations (:func:`stsdemo.serving.rest.reads_arguments`) before the
core checks them against their declarations.
"""

from __future__ import annotations

import json

import gradio as gr

from ...data import MAX_SENTENCE_CHARS
from ...losses.spec import PAPER_X0, paper_k
from ...playground.config import PlaygroundConfig, argument_line
from ...serving.rest import reads_arguments
from .. import model_cache
from ..loss_explorer import view as loss_view
from ..playground import api as playground_api
from ..score import view as score_view
from .common import session_of, user_errors

MCP_TOOLS = ("score_pair", "loss_at", "playground")  # api names (and the tools' names: the functions' names)
PLAYGROUND = PlaygroundConfig()
PLAYGROUND_ARGUMENTS = tuple(
    name for name in PLAYGROUND.to_dict() if name != "speed"
)  # speed: only the tab's
PLAYGROUND_DOC = """Train the paper's regression head on frozen sentence embeddings twice in lockstep, with the buffer-zone loss (Smooth K2 or Translated ReLU, buffer x0) and with its no-buffer twin (the same loss at x0 = 0), over several seeds at once; each twin of each seed is also stopped at its own best step, chosen on a selection set of noisy pairs held back from the training pool (20 % of the training pairs, 50 to 500); both are read on clean held-out pairs of STS-B dev or SNLI that select nothing (data "upload", a visitor's own pairs, is the Playground tab's alone). Bounded: seeds x steps x batch size (x width for the mlp head) has a budget, and a call stops at its wall clock with its readings at that step.

Args:
{arguments}
    model: "default" (the embedded all-MiniLM-L6-v2) or "scorer" (the shipped scorer's encoder); optional.

Returns:
    A JSON object: settings (as checked), encoder, twins_named (buffer, none), step, seeds, seconds, and two readings. At the last step: twins (each twin's held-out spearman x100, accuracy (% on the gold node), error (mean |error|), inside (% of training pairs within x0 of their label), selection and fit (the data set's metric on the selection set and on training pairs): mean and sd over seeds) and paired (buffer - none of spearman and accuracy over seeds: mean, se, n, per-seed diffs and the verdict: negligible when the 95 % t-interval of the mean (n - 1 degrees of freedom) lies inside ± 0.1 points, else holds or reversed when it lies above or below zero, else no measurable difference). stopped_at_best: the same twins and paired of each head at its own best step, steps (each seed's chosen step per twin) and selection (each twin's mean best selection value).
"""


def wire(state) -> None:
    @user_errors
    @reads_arguments(long_text=("sentence1", "sentence2"))
    def score_pair(
        sentence1: str,
        sentence2: str,
        scheme: str = "own",
        model: str = model_cache.DEFAULT_CHOICE,
        request: gr.Request = None,
    ) -> str:
        """Score how similar two sentences are with the shipped STS scorer (or the NLI scorer for scheme "nli"): a float on the label line 0-5 (0 = unrelated, 5 = same meaning), its nearest category and the cosine similarity of the two sentence embeddings.

        Args:
            sentence1: The first sentence (text beyond {max_chars} characters is cut, and the model reads at most its token limit; the answer's notice says when either happened).
            sentence2: The second sentence.
            scheme: How to read the prediction: "own" (the model's own line; STS 0-5 for the default scorer), "sts", "nli" (contradiction, neutral, entailment: a model that does not predict on that line is replaced by the shipped NLI scorer, and the notice says so), or your ordered categories lowest first, comma-separated, e.g. "bad, fair, good" (nodes 0, 1, 2, ...).
            model: "default" (the shipped STS scorer) or a Hugging Face model id; optional.

        Returns:
            A JSON object: prediction (float on the label line), category (nearest node's name), node (its position), cosine (-1..1), scheme (the categories read against, lowest first) and notice (why the scheme was not applied, or input that was shortened; empty when nothing to say).
        """
        return json.dumps(
            score_view.pair_result(state, session_of(request), sentence1, sentence2, scheme, model),
            ensure_ascii=False,
            allow_nan=False,
        )  # finite JSON, or an error: never Infinity

    @user_errors
    @reads_arguments()
    def loss_at(
        prediction: float,
        label: float,
        k: float = loss_view.START["k"],
        x0: float = loss_view.START["x0"],
        d: float = loss_view.START["d"],
    ) -> str:
        """Evaluate the paper's buffer-zone losses (Translated ReLU, Smooth K2) and the L1 and MSE baselines at one prediction: the loss value and its gradient with respect to the prediction, at x = |prediction - label|. Inside the buffer (x < x0) both buffer-zone losses are 0 with zero gradient.

        Args:
            prediction: The model's float on the label line, e.g. 3.6.
            label: The gold label on the same line, e.g. 3.
            k: Slope of the buffer-zone losses, > 0 (paper: Smooth K2 {sk2_k}, Translated ReLU {trelu_k} for BERT).
            x0: Half-width of the buffer zone, 0 <= x0 <= d/2 (paper: {x0}).
            d: Gap between neighbouring label nodes, > 0 (1 for STS 0-5 and NLI).

        Returns:
            A JSON object with the inputs and "losses": one row per loss with "loss" (its name), "x", "value" (f(x)), "gradient" (df/dprediction; negative: gradient descent raises the prediction) and "in_buffer" (whether the sample is in the buffer).
        """
        return json.dumps(loss_view.loss_at(prediction, label, k, x0, d), ensure_ascii=False, allow_nan=False)

    # the limits and the paper's values come from their one declaration (stsdemo.data, stsdemo.losses.spec)
    score_pair.__doc__ = score_pair.__doc__.format(max_chars=f"{MAX_SENTENCE_CHARS:,}")
    loss_at.__doc__ = loss_at.__doc__.format(
        sk2_k=f"{paper_k('sk2'):g}", trelu_k=f"{paper_k('trelu'):g}", x0=f"{PAPER_X0:g}"
    )

    @user_errors
    @reads_arguments()
    def playground(
        data: str = PLAYGROUND.data,
        loss: str = PLAYGROUND.loss,
        head: str = PLAYGROUND.head,
        width: int = PLAYGROUND.width,
        k: float = PLAYGROUND.k,
        x0: float = PLAYGROUND.x0,
        d: float = PLAYGROUND.d,
        noise: float = PLAYGROUND.noise,
        train_pairs: int = PLAYGROUND.train_pairs,
        round_labels: bool = PLAYGROUND.round_labels,
        lr: float = PLAYGROUND.lr,
        batch_size: int = PLAYGROUND.batch_size,
        steps: int = PLAYGROUND.steps,
        seeds: int = PLAYGROUND.seeds,
        model: str = model_cache.DEFAULT_CHOICE,
    ) -> str:
        given = locals()
        settings = {name: given[name] for name in PLAYGROUND_ARGUMENTS}
        return json.dumps(playground_api.api_run(state.playground, settings))

    # its arguments' help, limits and defaults come from their one declaration (stsdemo.playground.config)
    playground.__doc__ = PLAYGROUND_DOC.format(
        arguments="\n".join("    " + argument_line(name) for name in PLAYGROUND_ARGUMENTS if name != "model")
    )

    gr.api(score_pair, api_name="score_pair", concurrency_id="score", concurrency_limit=4)
    gr.api(loss_at, api_name="loss_at", concurrency_limit=None)
    gr.api(playground, api_name="playground", concurrency_id="playground_api", concurrency_limit=1)
