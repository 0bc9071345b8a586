"""Launch the stsdemo Gradio app: ``python app.py`` (locally, on a Hugging Face Space, or behind $PORT).

Environment: GRADIO_SERVER_NAME (default 127.0.0.1 locally, 0.0.0.0 on a Space), PORT or GRADIO_SERVER_PORT
(default 7860), STSDEMO_OUTPUT_DIR (runs, default ./runs), STSDEMO_MAX_UPLOAD (default 20mb),
STSDEMO_MAX_TRAINING / STSDEMO_MAX_WAITING (fine-tunes at once / waiting, default 1 / 4), STSDEMO_MCP=1 (also
serve the endpoints as MCP tools, e.g. scoring a pair described by its docstring, at /gradio_api/mcp/; needs
``pip install "gradio[mcp]"``).

No ``allowed_paths`` (and the output folder is blocked): Gradio serves every file under an allowed path to
anyone who asks for it by URL, and the output folder holds every visitor's runs. Files handed to a visitor
(zips, scored CSVs) are staged in the system temp dir, whence Gradio copies them into its cache
(stsdemo.app.store).
"""

import spaces  # noqa: F401  (first: ZeroGPU must patch CUDA before torch initialises it)

import os
import threading

from stsdemo import settings
from stsdemo.app.state import AppState
from stsdemo.app.ui import build_demo, launch_kwargs

state = AppState()
demo = build_demo(state)


def main() -> None:
    on_space = bool(os.environ.get("SPACE_ID"))
    host = os.environ.get("GRADIO_SERVER_NAME") or ("0.0.0.0" if on_space else "127.0.0.1")
    port = int(os.environ.get("PORT") or os.environ.get("GRADIO_SERVER_PORT") or 7860)
    output = settings.output_dir()
    output.mkdir(parents=True, exist_ok=True)
    threading.Thread(target=state.models.warm_up, name="stsdemo-warm-up", daemon=True).start()
    demo.launch(server_name=host, server_port=port, show_error=True, max_file_size=settings.max_upload(),
                blocked_paths=[str(output)], **launch_kwargs())


if __name__ == "__main__":
    main()
