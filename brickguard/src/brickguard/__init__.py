"""brickguard: a gate for AI-drafted embedded C."""

__version__ = "0.1.0"
