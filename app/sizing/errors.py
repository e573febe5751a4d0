"""Errors raised by the sizing core.

Every error is a ``ValueError`` so callers that only know "bad input" can catch it, and carries
``field``: the request field or config key at fault (``None`` when no single field is to blame).
The web layer turns these into 422 responses and the CLI into exit code 2.
"""

from __future__ import annotations


class SizingError(ValueError):
    """Base class: a human message plus the field at fault."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def to_dict(self) -> dict[str, str | None]:
        return {"error": type(self).__name__, "field": self.field, "message": self.message}


class ConfigError(SizingError):
    """A config.json value is missing, of the wrong type or impossible."""


class UnsupportedArchitectureError(SizingError):
    """The config is valid JSON but not a decoder-only model we can size (says what is missing)."""


class IllegalTPError(SizingError):
    """The tensor-parallel degree breaks a head-divisibility rule (the message names the rule)."""


class UnknownModelError(SizingError):
    """No preset with that id (the message lists close matches)."""


class UnknownGPUError(SizingError):
    """No GPU with that id in the catalogue (the message lists close matches)."""


class ContextLimitError(SizingError):
    """The requested context is longer than the model states it supports (names the limit)."""
