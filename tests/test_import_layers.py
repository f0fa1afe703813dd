"""The import graph of ``asymptotics/`` and ``validation/``, read from the source with ``ast``.

Every ``import`` and ``from … import`` counts — at module level and inside functions (a deferred
import is still a dependency), relative imports resolved against the importing module. Checked:

(a) no cycle between modules;
(b) no cycle between subpackages (``asymptotics.<sub>`` / ``validation.<sub>``; a top-level module
    such as ``asymptotics.errors`` is its own node);
(c) the layer table of ``docs/architecture.md`` (parsed from the document): a module imports only
    modules of its own layer or of the layers above it in the table, and every module is in it;
(d) the simulator imports no theory and no solver: directly only ``asymptotics.activations``,
    ``params``, ``errors`` (and the infrastructure ``atomic``, ``_version``), and nothing it reaches
    lies in ``symbolic``, ``codegen``, ``solvers`` or ``theory``.

The few import edges that still break a rule are listed in :data:`KNOWN_EDGES` (importer → imported,
each a module or a package standing for every module inside it), each with the reason it stays for now; each is a strict ``xfail`` of its own (it shows in every run, and removing
the edge makes that test pass unexpectedly, i.e. fail, until its entry is deleted here). Any other
edge that breaks a rule fails the tests below.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("asymptotics", "validation")
DOC = ROOT / "docs" / "architecture.md"

#: (importer, imported) → why the edge still exists. Nothing else may break a rule.
KNOWN_EDGES: dict[tuple[str, str], str] = {}


def _inside(module: str, key: str) -> bool:
    return module == key or module.startswith(key + ".")


def covers(key: tuple[str, str], a: str, b: str) -> bool:
    """Whether the entry ``key`` of :data:`KNOWN_EDGES` covers the edge a -> b."""
    return _inside(a, key[0]) and _inside(b, key[1])


def known(a: str, b: str) -> bool:
    """Whether the edge a -> b is one of :data:`KNOWN_EDGES`."""
    return any(covers(key, a, b) for key in KNOWN_EDGES)


#: What the simulator may import directly from ``asymptotics`` (besides itself).
SIMULATOR_DIRECT = ("asymptotics.activations", "asymptotics.numerics", "asymptotics.params", "asymptotics.errors",
                    "asymptotics.atomic", "asymptotics._version")
SIMULATOR_NEVER = ("asymptotics.symbolic", "asymptotics.codegen", "asymptotics.solvers",
                   "asymptotics.theory")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The longest prefix of ``name`` that is one of our modules (``pkg.mod.attr`` → ``pkg.mod``)."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules():
            return ".".join(parts)
        parts.pop()
    return None


def _imports(module: str, path: Path):
    """(imported module, line) for every import statement of ``module``, anywhere in the file."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield _resolve(alias.name), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                yield (full if full in modules() else _resolve(source)), node.lineno


@cache
def graph() -> dict[str, dict[str, int]]:
    """importer → {imported module: first line}; our own modules only, no self-edges."""
    out: dict[str, dict[str, int]] = {}
    for m, p in modules().items():
        edges: dict[str, int] = {}
        for target, line in _imports(m, p):
            if target and target != m:
                edges.setdefault(target, line)
        out[m] = edges
    return out


def _without_known(g: dict[str, dict[str, int]]) -> dict[str, set[str]]:
    return {a: {b for b in ts if not known(a, b)} for a, ts in g.items()}


def cycles(adj: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(adj):
        if root in index:
            continue
        work = [(root, iter(sorted(adj.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(adj.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def subpackage(module: str) -> str:
    """``asymptotics.<sub>`` for a module inside a subpackage, else the module itself."""
    parts = module.split(".")
    if len(parts) > 1 and (ROOT / parts[0] / parts[1]).is_dir():
        return ".".join(parts[:2])
    return module


def _describe(comp, adj) -> str:
    inside = set(comp)
    return "; ".join(f"{a} -> {b} (line {graph()[a][b] if b in graph()[a] else '?'})"
                     for a in comp for b in sorted(adj[a]) if b in inside)


# ---------------------------------------------------------------- (a), (b)
def test_no_import_cycle_between_modules():
    adj = _without_known(graph())
    found = cycles(adj)
    assert not found, "import cycles: " + " | ".join(_describe(c, adj) for c in found)


def test_no_import_cycle_between_subpackages():
    adj: dict[str, set[str]] = {}
    via: dict[tuple[str, str], str] = {}
    for a, ts in _without_known(graph()).items():
        adj.setdefault(subpackage(a), set())
        for b in ts:
            sa, sb = subpackage(a), subpackage(b)
            if sa != sb:
                adj[sa].add(sb)
                via.setdefault((sa, sb), f"{a}:{graph()[a][b]} -> {b}")
    found = cycles(adj)
    assert not found, "subpackage cycles: " + " | ".join(
        "; ".join(via[(a, b)] for a in c for b in sorted(adj[a]) if b in c) for c in found)


# ---------------------------------------------------------------- (c)
def layer_table() -> list[tuple[str, list[str]]]:
    """(layer name, [paths]) from the first table of docs/architecture.md whose header is
    ``| layer | where | what |``; paths are the backticked entries of the *where* column, relative
    to ``asymptotics/`` unless they start with ``validation/`` (a folder ends with ``/``)."""
    rows, inside = [], False
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells and cells[:2] == ["layer", "where"]:
            inside = True
            continue
        if inside and cells is None:
            break
        if inside and not set(cells[0]) <= set("-: "):
            rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1])))
    return rows


def _path_of(entry: str) -> Path:
    return ROOT / entry if entry.startswith("validation/") else ROOT / "asymptotics" / entry


@cache
def layer_of() -> dict[str, int]:
    """module → index of its layer (the longest table entry that contains its file)."""
    entries = [(_path_of(e), i) for i, (_, es) in enumerate(layer_table()) for e in es]
    out = {}
    for m, p in modules().items():
        best = max(((len(str(e)), i) for e, i in entries if p == e or e in p.parents), default=None)
        if best is not None:
            out[m] = best[1]
    return out


def test_layer_table_entries_exist_and_cover_every_module():
    table = layer_table()
    assert len(table) >= 7, table
    missing = [e for _, es in table for e in es if not _path_of(e).exists()]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"
    unplaced = sorted(set(modules()) - set(layer_of()))
    assert not unplaced, f"modules in no layer of docs/architecture.md's table: {unplaced}"


def test_no_module_imports_a_later_layer():
    """(A module in no layer is reported by the test above, not here.)"""
    names = [name for name, _ in layer_table()]
    bad = [f"{a}:{line} -> {b} ({names[layer_of()[a]]} imports {names[layer_of()[b]]})"
           for a, ts in graph().items() for b, line in ts.items()
           if not known(a, b) and layer_of().get(b, -1) > layer_of().get(a, len(names))]
    assert not bad, "upward imports:\n" + "\n".join(bad)


# ---------------------------------------------------------------- (d)
def test_simulator_imports_no_theory_and_no_solver():
    sim = [m for m in modules() if m.startswith("validation.simulator")]
    direct = {b for a in sim for b in graph()[a] if not b.startswith("validation.simulator")}
    assert all(b.startswith(SIMULATOR_DIRECT) for b in direct), sorted(direct)
    reach, todo = set(), list(sim)
    while todo:
        for b in graph()[todo.pop()]:
            if b not in reach:
                reach.add(b)
                todo.append(b)
    assert not [b for b in reach if b.startswith(SIMULATOR_NEVER)], sorted(reach)


# ---------------------------------------------------------------- the known edges, one each
@pytest.mark.parametrize(
    "edge", [pytest.param(e, marks=pytest.mark.xfail(strict=True, reason=r), id=f"{e[0]}->{e[1]}")
             for e, r in KNOWN_EDGES.items()])
def test_known_edge_is_gone(edge):
    left = [f"{a}:{line} -> {b}" for a, ts in graph().items() for b, line in ts.items() if covers(edge, a, b)]
    assert not left, f"still imported: {left}"


# ---------------------------------------------------------------- the checker itself
def test_graph_sees_deferred_and_relative_imports():
    """Toy sources: an import inside a function, a relative import from a package and a module."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    g = graph()
    # deferred: asymptotics/results.py imports the console table inside Result.__getitem__
    assert "asymptotics.console_table" in g["asymptotics.results"]
    # relative, from a package __init__ and from a plain module
    assert "asymptotics.rendering.printing" in g["asymptotics.codegen"]
    assert "asymptotics.rendering.templates" in g["asymptotics.codegen.systems"]
    assert subpackage("asymptotics.codegen.systems") == "asymptotics.codegen"
    assert subpackage("asymptotics.errors") == "asymptotics.errors"
