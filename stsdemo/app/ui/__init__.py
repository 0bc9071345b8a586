"""The Gradio pieces every tab uses: error toasts and the session of a request (:mod:`.common`), links that
reopen a state (:mod:`.share`), the raw REST reading rules (:mod:`.rest`), the API and MCP tools (:mod:`.tools`)
and every workaround for Gradio itself (:mod:`.gradio_seam`). Nothing here imports a tab's builder, so a tab's
``tab.py`` may import any of it."""
