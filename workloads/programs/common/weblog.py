"""Web logs and web pages as text for the Mars-style programs (pvc, pvr, iix): one
"URL IP time" line per page view (page popularity Zipf, from ``text.page_views``), and the URL
and IP spellings the logs use."""

from __future__ import annotations

import numpy as np

from . import text


def url(page: int) -> bytes:
    return b"/s%d/page%d.html" % (page % 97, page)


def ip(user: int) -> bytes:
    return b"10.%d.%d.%d" % ((user >> 16) & 255, (user >> 8) & 255, user & 255)


def lines_to_arrays(lines: list[bytes]) -> dict[str, np.ndarray]:
    starts = np.concatenate(([0], np.cumsum([len(x) for x in lines]))).astype(np.int32)
    return {"text": np.frombuffer(b"".join(lines), np.uint8).copy(), "line_start": starts}


def access_log(n: int, pages: int, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """n log lines as text arrays (``text``, ``line_start``), and the (page, user, time) rows."""
    rows = text.page_views(n, pages, seed)
    lines = [b"%s %s %d\n" % (url(int(p)), ip(int(u)), int(t)) for p, u, t in rows.tolist()]
    return lines_to_arrays(lines), rows
