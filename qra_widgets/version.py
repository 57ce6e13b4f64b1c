"""The package version, in one place: every output records it."""

__version__ = "0.1.0"
