"""The map picture of a turn report, as SVG and as PNG: see pbem/pictures/."""

from pbem.pictures import Scene, picture, rendered, to_png, to_svg

__all__ = ["Scene", "picture", "rendered", "to_png", "to_svg"]
