from . import Variant  # noqa: F401

VARIANTS: list = []
