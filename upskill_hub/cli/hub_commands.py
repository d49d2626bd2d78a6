"""``upskill-hub hub ...``: the local Hub-compatible server."""

from __future__ import annotations

from pathlib import Path

import typer

from upskill_hub.hub_server.locations import DATA_ENV, default_data_dir


def register(app: typer.Typer) -> None:
    hub = typer.Typer(
        name="hub",
        help="Local Hub-compatible server for offline work, CI and tests (not a Hub replacement).",
        no_args_is_help=True,
    )

    @hub.command("serve")
    def serve_command(
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on."),
        port: int = typer.Option(
            0, "--port", min=0, max=65535, help="Port to listen on (0-65535); 0 picks a free one."
        ),
        data: Path | None = typer.Option(
            None,
            "--data",
            help=f"Data directory (default: ${DATA_ENV} or ~/.cache/upskill-hub/hub).",
        ),
        token: str | None = typer.Option(
            None,
            "--token",
            help="Only 'Authorization: Bearer TOKEN' may write or read private repos.",
        ),
        jobs: bool = typer.Option(
            False,
            "--jobs",
            help="Answer the Jobs API (needs --token): runs the token holder's commands "
            "as local processes, no container.",
        ),
    ) -> None:
        """Serve the Hub API locally; prints the URL as the first line, then serves until Ctrl-C.

        Point clients at it with HF_ENDPOINT=<url> and HF_HUB_DISABLE_XET=1. This is a local
        stand-in for offline work, CI and tests, NOT a replacement for the Hugging Face Hub.
        With --jobs (and --token) its Jobs API runs each Job's command as a local subprocess
        (no container).
        """
        import sys

        from upskill_hub.hub_server import serve

        def announce(url: str) -> None:
            print(url, flush=True)
            if jobs:
                print(
                    "warning: --jobs: whoever holds the --token can run any command on this "
                    "machine as you (Jobs are local processes, no container)",
                    file=sys.stderr,
                    flush=True,
                )

        serve(
            host=host,
            port=port,
            data_dir=data or default_data_dir(),
            token=token,
            on_ready=announce,
            jobs=jobs,
        )

    app.add_typer(hub)
