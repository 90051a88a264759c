"""Checks of assignment 06_long_sequences (to be written)."""
ASSIGNMENT = "06_long_sequences"
TASKS: list[str] = []
CHECKS = []
MISCONCEPTIONS: dict[str, str] = {}
