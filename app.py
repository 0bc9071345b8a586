"""Launch the stsdemo Gradio app: ``python app.py`` (locally, on a Hugging Face Space, or behind $PORT);
``python app.py --mcp`` also serves it as an MCP server (tools: ``score_pair``, ``loss_at``, ``playground``) at
http://127.0.0.1:7860/gradio_api/mcp/ (streamable HTTP; SSE at /gradio_api/mcp/sse). The Playground's built-in
data sets are pinned files (:mod:`stsdemo.playground.pinned`): nothing is embedded at start-up.

Environment: GRADIO_SERVER_NAME (default 127.0.0.1 locally, 0.0.0.0 on a Space), PORT or GRADIO_SERVER_PORT
(default 7860), STSDEMO_OUTPUT_DIR (runs, default ./runs), STSDEMO_MAX_UPLOAD (default 20mb),
STSDEMO_MAX_TRAINING / STSDEMO_MAX_WAITING (fine-tunes at once / waiting, default 1 / 4), STSDEMO_MCP=1 (as
``--mcp``: scoring a pair and the losses at a point as MCP tools, each described by its docstring; needs
``pip install "gradio[mcp]"``).

No ``allowed_paths`` (and the output folder is blocked): Gradio serves every file under an allowed path to
anyone who asks for it by URL, and the output folder holds every visitor's runs. Files handed to a visitor
(zips, scored CSVs) are staged in the system temp dir, whence Gradio copies them into its cache
(stsdemo.serving.session_files).

Disk (stsdemo.serving.session_files): at start-up the orphans of a killed server are removed, and Gradio's folder
(GRADIO_TEMP_DIR; by default one of this server's own in the system temp dir) is cleared; then a sweeper
thread removes stale sessions, handed-over downloads and uploads past their time every minute, and Gradio
deletes its cached copies on a schedule (``delete_cache``). Uploads are held to STSDEMO_VISITOR_UPLOADS a
visitor (default 200mb) and STSDEMO_GRADIO_FOLDER together (default 2gb). Each visitor's runs may take
STSDEMO_SESSION_DISK (default 1gb), all of them together STSDEMO_TOTAL_DISK (default 20gb; over it the
sessions idle longest go first).
"""

import spaces  # noqa: F401  (first: ZeroGPU must patch CUDA before torch initialises it)

# isort: split

import importlib.util
import os
import sys
import threading

from transformers.utils import logging as hf_logging

from stsdemo import environment
from stsdemo.serving import session_files, uploads

# Gradio's uploads and copies in a folder of this server's own (unless the operator names one): cleared
# at start-up
OWN_GRADIO_FOLDER = not os.environ.get("GRADIO_TEMP_DIR")
if OWN_GRADIO_FOLDER:
    os.environ["GRADIO_TEMP_DIR"] = str(uploads.own_gradio_folder())

from stsdemo.app.app_state import AppState  # noqa: E402  (Gradio reads GRADIO_TEMP_DIR when imported)
from stsdemo.app.page import build_demo, launch_kwargs, mcp_wanted  # noqa: E402
from stsdemo.serving import gradio_seam  # noqa: E402

session_files.recover_interrupted()  # runs a killed server left "running" say so, their checkpoints are listed again
if OWN_GRADIO_FOLDER:  # a killed server's uploads and copies
    uploads.clear_folder(gradio_seam.gradio_cache())
else:  # a folder shared with others: only the zips and scored files this app hands out
    session_files.remove_cached_downloads(gradio_seam.gradio_cache())
state = AppState()
demo = build_demo(state)
# Gradio reads delete_cache when launch() builds the server: its copies of handed-out files are deleted on a
# schedule instead of never (a zip is about 84 MB).
demo.delete_cache = session_files.GRADIO_CACHE_SCHEDULE


def launch(host: str | None = None, port: int | None = None, mcp: bool = False, **options):
    """Start the app's background threads (model warm-up, the disk sweeper) and serve ``demo`` as a Space does: the upload cap, the
    output folder never served, Gradio's cache cleared. ``options`` go to ``demo.launch`` (tests and benchmarks
    pass ``prevent_thread_lock=True``); returns what it returns."""
    output = environment.output_dir()
    output.mkdir(parents=True, exist_ok=True)
    threading.Thread(target=state.models.warm_up, name="stsdemo-warm-up", daemon=True).start()
    session_files.start_sweeper(state, gradio_folder=gradio_seam.gradio_cache())
    return demo.launch(
        server_name=host,
        server_port=port,
        show_error=True,
        max_file_size=environment.max_upload(),
        blocked_paths=[str(output)],
        **launch_kwargs(mcp=mcp, demo=demo, state=state),
        **options,
    )


def main() -> None:
    mcp = mcp_wanted(sys.argv[1:])
    if mcp and importlib.util.find_spec("mcp") is None:
        print(
            'stsdemo: error: --mcp (or STSDEMO_MCP=1) needs the MCP extra: pip install "gradio[mcp]==6.31.0"',
            file=sys.stderr,
        )
        sys.exit(2)
    hf_logging.disable_progress_bar()  # every model load and save would draw bars in the server log
    on_space = bool(os.environ.get("SPACE_ID"))
    host = os.environ.get("GRADIO_SERVER_NAME") or ("0.0.0.0" if on_space else "127.0.0.1")
    port = int(os.environ.get("PORT") or os.environ.get("GRADIO_SERVER_PORT") or 7860)
    launch(host, port, mcp)


if __name__ == "__main__":
    main()
