"""Games are stored as an append-only event log; see docs/architecture.md."""
