"""Phase 10 Companion: score keeper, phase referee and card camera for Phase 10 played with real cards."""

__version__ = "0.1.0"
