"""The flow-size buckets `corral compare` reports FCTs in by default (kept apart from the
statistics so that the CLI can show the default without importing numpy)."""

DEFAULT_BUCKETS = ("100KB", "1MB")
