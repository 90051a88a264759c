"""Checks of assignment 03_masking (to be written)."""
ASSIGNMENT = "03_masking"
TASKS: list[str] = []
CHECKS = []
MISCONCEPTIONS: dict[str, str] = {}
