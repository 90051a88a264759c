"""Templates of the student kit's own modules (copied into the kit by :mod:`autograder.kit.build`).

Each file here becomes one module of the kit (see ``build.KIT_FILES``); they import only what
the kit ships, so they are never imported from the full package.
"""
