"""The log file: where tracebacks go so that people see one clear line instead.

``setup_logging`` sends gemtui's warnings and errors to ``gemtui.log`` in the log dir
(``$GEMTUI_HOME/logs`` in tests). Secrets never reach it: the formatter masks every
record, traceback included, with ``gemtui.redact`` (an exception message may quote a key).
"""

from __future__ import annotations

import logging
from pathlib import Path

__all__ = ["log_file", "setup_logging"]

_handler: logging.FileHandler | None = None


def log_file() -> Path:
    from gemtui.config.paths import log_dir

    return log_dir() / "gemtui.log"


def setup_logging(level: int = logging.WARNING) -> Path | None:
    """Send the ``gemtui`` logger to the log file (moved if the log dir changed).

    Returns the file, or None when the directory cannot be written.
    """
    global _handler
    path = log_file()
    logger = logging.getLogger("gemtui")
    if _handler is not None:
        if Path(_handler.baseFilename) == path.resolve():
            return path
        logger.removeHandler(_handler)
        _handler.close()
        _handler = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    except OSError:  # no file: keep records (tracebacks) off stderr, where one line is said
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
        logger.propagate = False
        return None
    from gemtui.redact import RedactingFormatter

    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    _handler = handler
    return path
