"""Build the optional C kernel; everything else is declared in pyproject.toml.

``optional=True``: without a C compiler the install still succeeds and neardup falls back to its
numpy path, which gives the same signatures (tested), only slower.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "neardup._kernel",
            ["neardup/_kernel.c"],
            extra_compile_args=["-O3", "-std=c11"],
            optional=True,
        )
    ]
)
