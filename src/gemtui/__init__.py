"""gemtui: a full-screen terminal coding agent."""

__version__ = "0.1.0"
__all__ = ["__version__"]
