"""The *Playground* tab: the Playground's page (``stsdemo/playground/web/``, which trains in the visitor's
browser) in a frame, the server side that serves it, and its API endpoint."""
