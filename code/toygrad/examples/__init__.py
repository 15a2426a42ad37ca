"""Worked examples from the book that are not part of the engine itself."""
