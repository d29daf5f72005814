"""ffsite: measure and publish AI-model personality (Feedback Forensics method)."""

__version__ = "0.1.0"
