"""The server's access log without the secrets some addresses carry.

A password-reset, e-mail-confirmation or unsubscribe link, and a mock scorecard's link, hold
their credential in the path. Written to the access log, anyone who can read the log could use
an unspent one; the log keeps the route and drops the token.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

SECRET_IN_PATH = re.compile(r"^(/(?:reset|verify-email|unsubscribe|mock/scorecards)/)[^/?#\s]+")
REDACTED = "…"


class SecretPathFilter(logging.Filter):
    """Rewrites uvicorn's access record (client, method, path, version, status) in place."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact(args[2]), *args[3:])
        return True


def redact(path: str) -> str:
    return SECRET_IN_PATH.sub(lambda m: m.group(1) + REDACTED, path)


def logging_config() -> dict[str, Any]:
    """uvicorn's own logging configuration with the filter on its access handler."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["secret_paths"] = {"()": f"{__name__}.SecretPathFilter"}
    config["handlers"]["access"]["filters"] = ["secret_paths"]
    return config
