r"""LaTeX for a terminal and a paper: the rows of an ``aligned`` environment broken into lines of
at most ``width`` characters (``derive --latex``), and still valid LaTeX.

A row ``L &= R`` longer than ``width`` is broken at the top-level ``+`` and ``−`` of its long
side into continuation rows ``&\quad …``; a long equation ``L &= 0`` is written ``& L₁ \\ &\quad
L₂ … = 0``. A term too long by itself is broken inside its ``\left( … \right)`` (closing a line
with ``\right.`` and opening the next with ``\left.``), and a long ``\frac{N}{D}`` is written
``\frac{1}{D} \left(N\right)`` (a short D) or ``\left(N\right) \left(D\right)^{-1}`` so that it
can be broken the same way. A ``%`` comment is wrapped as comments. What cannot be broken (one long
symbol) stays long.

>>> print(break_latex("\\begin{aligned}\n\\alpha + \\beta + \\gamma + \\delta + \\epsilon &= 0\n\\end{aligned}", 34))
\begin{aligned}
& \alpha + \beta \\
&\quad + \gamma + \delta \\
&\quad + \epsilon = 0
\end{aligned}
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["break_latex", "terms"]

#: A denominator up to this long stays a fraction, ``\\frac{1}{D} \\left(N\\right)``.
SHORT = 60
_OPEN = re.compile(r"\\left[(\[.|]|\\left\\\{|[{(\[]")
_CLOSE = re.compile(r"\\right[)\].|]|\\right\\\}|[})\]]")


def _depths(s: str) -> list[int]:
    """The nesting depth at each character of ``s`` (braces, brackets, \\left…\\right)."""
    out, depth, i = [], 0, 0
    while i < len(s):
        m = _OPEN.match(s, i) or _CLOSE.match(s, i)
        if m and m.re is _OPEN:
            out += [depth] * (m.end() - i)
            depth += 1
        elif m:
            depth -= 1
            out += [depth] * (m.end() - i)
        else:
            out.append(depth)
            i += 1
            continue
        i = m.end()
    return out


def terms(s: str) -> list[str]:
    """``s`` split before each top-level binary `` + `` / `` - ``.

    >>> terms("- a b + \\\\left(c - d\\\\right) - e")
    ['- a b', '+ \\\\left(c - d\\\\right)', '- e']
    """
    depth = _depths(s)
    cuts = [i for i in range(1, len(s) - 2) if s[i] == " " and s[i + 1] in "+-" and s[i + 2] == " "
            and depth[i] == 0]
    pieces, start = [], 0
    for c in cuts:
        pieces.append(s[start:c].strip())
        start = c + 1
    pieces.append(s[start:].strip())
    return [p for p in pieces if p]


def _group(s: str, opener: str) -> tuple[int, int] | None:
    """The span (content start, closer start) of the first top-level group opened by ``opener``."""
    depth = _depths(s)
    i = s.find(opener)
    while i >= 0 and depth[i] != 0:
        i = s.find(opener, i + 1)
    if i < 0:
        return None
    start = i + len(opener)
    for j in range(start, len(s)):
        if depth[j] == 0 and j > i:
            return start, j
    return None


def _unfrac(term: str) -> str:
    """``\\frac{N}{D}`` (the first top-level one) as ``\\left(N\\right) \\left(D\\right)^{-1}``."""
    num = _group(term, "\\frac{")
    if num is None or term[num[1]:num[1] + 2] != "}{":
        return term
    den_start = num[1] + 2
    depth = _depths(term)
    end = next((j for j in range(den_start, len(term)) if term[j] == "}" and depth[j] == 0), None)
    if end is None:
        return term
    head, den = term[:num[0] - len("\\frac{")], term[den_start:end]
    if len(den) <= SHORT:
        return f"{head}\\frac{{1}}{{{den}}} \\left({term[num[0]:num[1]]}\\right){term[end + 1:]}"
    return f"{head}\\left({term[num[0]:num[1]]}\\right) \\left({den}\\right)^{{-1}}{term[end + 1:]}"


def _split_term(term: str, width: int, deep: bool = True) -> list[str]:
    """A term longer than ``width`` broken inside its first \\left( … \\right) group (one level:
    the pieces inside it are not broken again, ``deep=False``)."""
    if len(term) <= width or not deep:
        return [term]
    if "\\frac{" in term and _group(term, "\\left(") is None:
        term = _unfrac(term)
    span = _group(term, "\\left(")
    if span is None:
        return [term]
    start, stop = span
    if not term.startswith("\\right)", stop):
        return [term]
    room = width - len("\\left.  \\right.")
    prefix = term[:start - len("\\left(")].rstrip()
    if prefix and start > room // 2:  # a long factor before the group: on a line of its own
        return [prefix, *_split_term(term[len(prefix):].lstrip(), width)]
    inner = _pack(terms(term[start:stop]), room, first=room - start, deep=False)
    if len(inner) < 2:
        return [term]
    head, tail = term[:start], term[stop + len("\\right)"):].strip()
    out = [f"{head}{inner[0]} \\right."] + [f"\\left. {p} \\right." for p in inner[1:-1]]
    last = f"\\left. {inner[-1]}\\right)"
    if tail and len(last) + 1 + len(tail) > width:  # a long tail (a denominator) on lines of its own
        return out + [last] + _split_term(tail, width)
    return out + [f"{last} {tail}" if tail else last]


def _pack(pieces: list[str], width: int, first: int | None = None, deep: bool = True) -> list[str]:
    """The pieces joined greedily into lines of at most ``width`` characters (the first line
    ``first``; a long piece broken by :func:`_split_term`)."""
    lines: list[str] = []
    for piece in pieces:
        for part in _split_term(piece, width, deep):
            room = first if first is not None and len(lines) == 1 else width
            if lines and len(lines[-1]) + 1 + len(part) <= room and not lines[-1].endswith("\\right."):
                lines[-1] += " " + part
            else:
                lines.append(part)
    return lines


def _break_row(row: str, width: int) -> list[str]:
    """One row of an aligned environment (without its ``\\\\``) as rows of at most ``width``."""
    if len(row) <= width or "&=" not in row:
        return [row]
    left, right = (p.strip() for p in row.split("&=", 1))
    room = width - len("&\\quad ") - len(" \\\\")  # a row ends with " \\"
    if right == "0":  # L = 0: the terms of L, "= 0" at the end
        lines = _pack(terms(left), room - len(" = 0"))
        rows = [f"& {lines[0]}"] + [f"&\\quad {p}" for p in lines[1:]]
        rows[-1] += " = 0"
        return rows
    lines = _pack(terms(right), room, first=width - len(left) - len(" &=  \\\\"))
    return [f"{left} &= {lines[0]}"] + [f"&\\quad {p}" for p in lines[1:]]


def break_latex(tex: str, width: int = 100) -> str:
    """``tex`` with the rows of its ``aligned`` environments and its ``%`` comments broken into
    lines of at most ``width`` characters where a top-level sum allows (see the module docstring)."""
    out: list[str] = []
    inside = False
    for line in tex.splitlines():
        stripped = line.strip()
        if stripped.startswith("%") and len(line) > width:
            out += textwrap.wrap(stripped.lstrip("% "), width - 2, initial_indent="% ", subsequent_indent="% ",
                                 break_long_words=False, break_on_hyphens=False)
            continue
        if stripped.startswith("\\begin{aligned}"):
            inside = True
        elif stripped.startswith("\\end{aligned}"):
            inside = False
        if not inside or len(line) <= width:
            out.append(line)
            continue
        ends = line.rstrip().endswith("\\\\")
        body = line.rstrip()[:-2].rstrip() if ends else line.rstrip()
        rows = _break_row(body, width)
        out += [r + " \\\\" for r in rows[:-1]] + [rows[-1] + (" \\\\" if ends else "")]
    return "\n".join(out)
