"""Where the local Hub server keeps its data by default (no heavy imports here)."""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable naming the default data directory.
DATA_ENV = "UPSKILL_HUB_SERVER_DATA"


def default_data_dir() -> Path:
    """``$UPSKILL_HUB_SERVER_DATA``, else ``$XDG_CACHE_HOME/upskill-hub/hub`` (``~/.cache``)."""
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "upskill-hub" / "hub"
