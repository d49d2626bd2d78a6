"""A context manager that silences ``datasets``' progress bars and info logs while the library
reads or writes a Hub dataset (publish and registry both use it; it imports ``datasets`` only
when entered and holds nothing else)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_datasets() -> Iterator[None]:
    """Silence datasets' progress bars and info logs for the duration (restored afterwards)."""
    from datasets.utils import logging as ds_logging

    bars, level = ds_logging.is_progress_bar_enabled(), ds_logging.get_verbosity()
    ds_logging.disable_progress_bar()
    ds_logging.set_verbosity_error()
    try:
        yield
    finally:
        ds_logging.set_verbosity(level)
        if bars:
            ds_logging.enable_progress_bar()
