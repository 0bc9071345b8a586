"""The Gradio pieces every tab uses: error toasts and the session of a request (:mod:`.common`), links that
reopen a state (:mod:`.share`) and the API and MCP tools (:mod:`.tools`). The raw REST reading rules and every
workaround for Gradio itself are the server's (:mod:`stsdemo.serving.rest`, :mod:`stsdemo.serving.gradio_seam`).
Nothing here imports a tab's builder, so a tab's ``tab.py`` may import any of it."""
