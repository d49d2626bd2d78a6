"""What the Gradio Space does, as plain library code (the Space itself only wires widgets).

Modules, each importable without gradio:

- :mod:`.settings`: hosted (on a Space, ``SPACE_ID`` set) or local mode, and the limits of each;
- :mod:`.network`: the base-URL guard refusing loopback, private, link-local and metadata
  addresses in hosted mode (SSRF);
- :mod:`.form`: the evaluation form's values checked and turned into a model string and an
  :class:`~upskill_hub.evaluation.runner.EvalConfig`, without ever using the Space's own keys;
- :mod:`.skills`: the bundled skills and loading the chosen skill (bundled name or Hub repo id);
- :mod:`.visitor_hub`: a hosted visitor's Hub client, which asks the Hub with the visitor's token
  about every revision (a commit hash too) before the shared cache is read;
- :mod:`.live`: an evaluation running in a worker thread, streamed as page updates, with a
  per-visitor concurrency gate, a deadline and cancellation;
- :mod:`.tables`: the summary table, per-case HTML table and progress line;
- :mod:`.messages`: any failure as one readable, secret-free sentence;
- :mod:`.browse`: the "Browse skills" tab (search, a skill's page);
- :mod:`.card_html`: a skill card rendered with an allowlist (no raw HTML, forms, frames or
  images loaded without a click);
- :mod:`.push_results`: "Push results to the Hub" for a finished run;
- :mod:`.deploy`: ``upskill-hub space deploy`` (the Space repo's files, pinned requirements).
"""
