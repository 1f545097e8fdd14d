"""Colour differences as people see them, for the map tests: sRGB to CIE
Lab, the CIEDE2000 difference (Sharma, Wu and Dalal, 2005, whose test pairs
tests/test_empire_board_map.py checks it against), and what a person with
deuteranopia or protanopia sees (Machado, Oliveira and Fernandes, 2009:
the matrices for severity 1.0, applied to linear RGB)."""

from __future__ import annotations

from math import atan2, cos, degrees, exp, hypot, radians, sin, sqrt

Lab = tuple[float, float, float]
RGB = tuple[float, float, float]

# Machado et al. 2009, severity 1.0, on linear RGB
DEUTERANOPIA = ((0.367322, 0.860646, -0.227968),
                (0.280085, 0.672501, 0.047413),
                (-0.011820, 0.042940, 0.968881))  # fmt: skip
PROTANOPIA = ((0.152286, 1.052583, -0.204868),
              (0.114503, 0.786281, 0.099216),
              (-0.003882, -0.048116, 1.051998))  # fmt: skip
NORMAL = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
VISIONS = {"normal": NORMAL, "deuteranopia": DEUTERANOPIA, "protanopia": PROTANOPIA}


def linear(hex_colour: str) -> RGB:
    """#rrggbb as linear-light RGB, 0 to 1 (the sRGB curve undone)."""
    out = []
    for i in (1, 3, 5):
        v = int(hex_colour[i : i + 2], 16) / 255
        out.append(v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4)
    return out[0], out[1], out[2]


def seen(hex_colour: str, vision: str) -> RGB:
    """The linear RGB a viewer with ``vision`` sees, clipped to the gamut."""
    rgb = linear(hex_colour)
    m = VISIONS[vision]
    return tuple(min(1.0, max(0.0, sum(m[i][j] * rgb[j] for j in range(3))))
                 for i in range(3))  # type: ignore[return-value]  # fmt: skip


def lab(rgb: RGB) -> Lab:
    """Linear sRGB to CIE L*a*b* (D65 white)."""
    r, g, b = rgb
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(lab1: Lab, lab2: Lab) -> float:
    """The CIEDE2000 colour difference (kL = kC = kH = 1)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (hypot(a1, b1) + hypot(a2, b2)) / 2
    g = 0.5 * (1 - sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = a1 * (1 + g), a2 * (1 + g)
    c1p, c2p = hypot(a1p, b1), hypot(a2p, b2)
    h1p = degrees(atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = degrees(atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    else:
        dh = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    big_dh = 2 * sqrt(c1p * c2p) * sin(radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * cos(radians(h_bar - 30)) + 0.24 * cos(radians(2 * h_bar))
         + 0.32 * cos(radians(3 * h_bar + 6)) - 0.20 * cos(radians(4 * h_bar - 63)))  # fmt: skip
    d_theta = 30 * exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * sqrt(cp_bar**7 / (cp_bar**7 + 25**7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -sin(radians(2 * d_theta)) * r_c
    return sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (big_dh / s_h) ** 2
                + r_t * (dc / s_c) * (big_dh / s_h))  # fmt: skip


def difference(one: str, two: str, vision: str = "normal") -> float:
    """How far apart two #rrggbb colours look to a viewer with ``vision``."""
    return ciede2000(lab(seen(one, vision)), lab(seen(two, vision)))
