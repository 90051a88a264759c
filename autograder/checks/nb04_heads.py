"""Checks of assignment 04_heads (to be written)."""
ASSIGNMENT = "04_heads"
TASKS: list[str] = []
CHECKS = []
MISCONCEPTIONS: dict[str, str] = {}
