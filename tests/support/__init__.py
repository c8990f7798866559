"""Helpers shared by the test tiers: real debuggee JVMs, live-tier policy, recordings."""
