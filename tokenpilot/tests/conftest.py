"""Shared pytest setup for tokenpilot's tests."""

# Real llama.cpp fixtures (realfleet, smollm2): one fleet per session, skipped when not installed.
pytest_plugins = ["conftest_llama"]
