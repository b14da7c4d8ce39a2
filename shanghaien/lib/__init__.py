"""The shared kernel every app may use: typed errors, input checks, rate limits."""
