"""Checks of assignment 02_scaling (to be written)."""
ASSIGNMENT = "02_scaling"
TASKS: list[str] = []
CHECKS = []
MISCONCEPTIONS: dict[str, str] = {}
