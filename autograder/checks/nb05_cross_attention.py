"""Checks of assignment 05_cross_attention (to be written)."""
ASSIGNMENT = "05_cross_attention"
TASKS: list[str] = []
CHECKS = []
MISCONCEPTIONS: dict[str, str] = {}
