"""runner's version: one literal, at the bottom of the layers, so that any module may read it
without importing the package's root (whose lazy names reach up into the commands)."""

__version__ = "0.1.0"
