"""Every output location and every input file a user names: one line, never a traceback.

The commands are discovered from the CLI app: every command (and ``theory`` subcommand) whose
options include a path (``--out``, ``--studies-out``, ``--cache-dir``, ``--docs-dir``) is run,
in-process, with a bad location of each kind — ``/proc`` (no file can be created there, even as
root), a missing folder, a file where a folder is wanted, a folder where a file is wanted, an
unknown suffix, a read-only folder (skipped as root, who writes anyway) — and must exit with status
2, print exactly one line on stderr naming the option and the path (never the temporary ``.part``
file) and nothing on stdout. A new command with a path option is covered without editing this
file, unless it has required arguments: :data:`ARGS` must give them (a test says so).

The rule they follow (:mod:`asymptotics.atomic`): an output *file* needs an existing, writable
folder; an output *folder* is created with its parents. The API writers (``Result.write``,
``write_bytes``, ``output_dir``, the sweep store, ``reproduce``) raise one
:class:`~asymptotics.errors.ParameterError`; an interrupted write keeps the previous file.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest
from conftest import cli_commands

from asymptotics.cli.app import main
from asymptotics.errors import ParameterError

#: Cheap arguments of the commands that need some (and the variants worth running apart).
ARGS: dict[str, list[str]] = {
    "activation": ["tanh"],
    "check": ["--quantity", "risk", "--claim", "risk1 >= 0", "--over", "psi1=1:4", "--samples", "4", "--no-search"],
    "derive": ["--expr", "X", "--dims", "X:n,n"],
    "figure": ["tab_srf_grid", "--size", "toy"],
    "reproduce": ["--only", "tab_srf_grid", "--size", "toy"],
    "simulate": ["--d", "8", "--seeds", "2"],
    "sweep": ["{config}"],
    "table": ["{result}"],
    "theory large-step": ["--psi1", "8"],
    "theory srf": ["--alpha", "1", "--alpha0", "1", "--eta-tilde", "1"],
}
#: Modes of a command whose output paths are handled by another body.
VARIANTS: dict[str, list[list[str]]] = {"validate": [[], ["--finite-size", "--quick"]]}
#: Options that only mean something in one mode (option: the arguments that enable it).
NEEDS: dict[str, list[str]] = {"--studies-out": ["--finite-size", "--quick"]}
#: Commands whose --out format is chosen by another option (no suffix check).
FREE_SUFFIX = {"table"}
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _is_path(param) -> bool:
    """A path-valued parameter (click's ``Path`` type, or typer ≥ 0.29's annotation)."""
    kind = getattr(param, "type", None)
    if kind is not None:
        return "path" in type(kind).__name__.lower()
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    return "Path" in str(annotation)


def _path_options(cmd) -> list[tuple[str, str]]:
    """(option, "file" | "dir") for each path-valued option of ``cmd``."""
    found = []
    for p in cmd.params:
        if getattr(p, "param_type_name", "") != "option":
            continue
        if not _is_path(p):
            continue
        name = next(o for o in p.opts if o.startswith("--"))
        folder = name.endswith("-dir") or any(w in (p.help or "").lower() for w in ("folder", "directory"))
        found.append((name, "dir" if folder else "file"))
    return found


def _commands() -> list[tuple[str, object]]:
    return cli_commands()


OUTPUTS = [(name, opt, kind) for name, cmd in _commands() for opt, kind in _path_options(cmd)]


def test_discovery_finds_every_output_and_knows_the_required_arguments():
    names = {name for name, _, _ in OUTPUTS}
    # the commands of the CLI today (a new one is added automatically; this guards discovery itself)
    assert {"theory risk", "simulate", "sweep", "figure", "reproduce", "table", "validate", "derive",
            "activation", "theory srf", "theory spectrum"} <= names
    assert ("reproduce", "--out", "dir") in OUTPUTS and ("sweep", "--out", "dir") in OUTPUTS
    assert ("theory risk", "--out", "file") in OUTPUTS and ("validate", "--studies-out", "file") in OUTPUTS
    assert ("check", "--store", "dir") in OUTPUTS and ("reproduce", "--cache-dir", "dir") in OUTPUTS
    for name, cmd in _commands():
        required = [p.name for p in cmd.params if p.required]
        assert not required or name in ARGS, f"add cheap arguments for '{name}' (requires {required}) to ARGS"


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A working folder with a sweep config, a result file and an existing plain file."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "moments.toml"
    config.write_text('quantity = "gaussian.moments"\n[fixed]\nactivation = "erf"\n[grid]\nscale = [0.5, 1.0]\n')
    result = tmp_path / "result.json"
    result.write_text('{"meta": {}, "rows": [{"psi1": 1.0, "risk": 0.5}]}\n')
    (tmp_path / "plain.json").write_text("{}\n")
    (tmp_path / "adir").mkdir()
    return {"tmp": tmp_path, "config": str(config), "result": str(result)}


def _argv(name: str, env: dict, extra: list[str]) -> list[str]:
    args = [a.format(**env) for a in ARGS.get(name, [])]
    return [*name.split(), *args, *extra]


def _bad_locations(kind: str, tmp: Path, suffix: str) -> dict[str, Path]:
    """Locations that cannot be written, by case."""
    cases = {
        "proc": Path("/proc") / f"asymptotics-no{suffix}",
        "file_as_folder": tmp / "plain.json" / f"x{suffix}",
    }
    if kind == "file":
        cases["missing_folder"] = tmp / "nope" / f"x{suffix}"
        cases["folder_as_file"] = tmp / "adir"
    else:
        cases["existing_file"] = tmp / "plain.json"
    return cases


def _one_line_error(code: int, captured, *fragments: str) -> str:
    err_lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code == 2, (code, captured.err[-2000:])
    assert "Traceback" not in captured.err and captured.out == "", captured
    assert len(err_lines) == 1, err_lines
    line = err_lines[0]
    assert line.startswith("error: ") and ".part" not in line, line
    for f in fragments:
        assert f in line, (f, line)
    return line


def _runs(name: str) -> list[list[str]]:
    return VARIANTS.get(name, [[]])


CLI_CASES = [
    pytest.param(name, opt, kind, case, mode, id=f"{name}|{opt}|{case}|{' '.join(mode) or '-'}")
    for name, opt, kind in OUTPUTS
    for mode in _runs(name)
    if opt not in NEEDS or NEEDS[opt] == mode
    for case in (*_bad_locations(kind, Path("/t"), ".json"),
                 *(("unknown_suffix", "contradicting_suffix") if kind == "file" and opt == "--out"
                   and name not in FREE_SUFFIX else ()))
]


@pytest.mark.parametrize("name, opt, kind, case, mode", CLI_CASES)
def test_every_output_option_refuses_a_bad_location_in_one_line(name, opt, kind, case, mode, env, capsys):
    tmp = env["tmp"]
    path = {"unknown_suffix": tmp / "r.xlsx", "contradicting_suffix": tmp / "r.json"}.get(case) \
        or _bad_locations(kind, tmp, ".json")[case]
    extra = [opt, str(path)] + (["--format", "csv"] if case == "contradicting_suffix" else [])
    if opt != "--out" and kind == "dir":  # a folder option beside --out: the output itself is fine
        extra += ["--out", str(tmp / "o")]
    code = main(_argv(name, env, [*mode, *extra]))
    line = _one_line_error(code, capsys.readouterr(), opt, str(path))
    if case == "unknown_suffix":
        assert ".csv, .json, .parquet" in line and "--format" in line
    if case == "contradicting_suffix":
        assert "--format csv" in line and "names json" in line and not path.exists()
    assert not (tmp / "nope").exists()  # a missing folder of an output file is never created
    assert not list(tmp.rglob("*.part"))


@pytest.mark.skipif(ROOT, reason="root writes into a read-only folder anyway")
@pytest.mark.parametrize("name, opt, kind", [o for o in OUTPUTS if o[1] == "--out"][:3] + [
    o for o in OUTPUTS if o[0] in ("sweep", "reproduce") and o[1] == "--out"])
def test_read_only_folder(name, opt, kind, env, capsys):
    ro = env["tmp"] / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        path = ro / ("x.json" if kind == "file" else "sub")
        code = main(_argv(name, env, [*_runs(name)[0], opt, str(path)]))
        _one_line_error(code, capsys.readouterr(), opt, str(path))
    finally:
        ro.chmod(0o755)


# ---- input files ------------------------------------------------------------------------------------
def _inputs(tmp: Path) -> dict[str, Path]:
    png = tmp / "image.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    latin = tmp / "latin.json"
    latin.write_bytes('{"meta": {}, "rows": [{"a": "caf\xe9"}]}'.encode("latin-1"))
    latin_toml = tmp / "latin.toml"
    latin_toml.write_bytes('name = "caf\xe9"\nquantity = "gaussian.moments"\n'.encode("latin-1"))
    folder = tmp / "folder.json"
    folder.mkdir()
    return {"binary": png, "latin": latin, "latin_toml": latin_toml, "directory": folder,
            "missing": tmp / "missing.json"}


@pytest.mark.parametrize("case", ["binary", "latin", "latin_toml", "directory", "missing"])
@pytest.mark.parametrize("name, what", [("sweep", "sweep config"), ("table", "RESULT_FILE")])
def test_input_files_are_refused_in_one_line(name, what, case, env, capsys):
    path = _inputs(env["tmp"])[case]
    code = main([name, str(path)])
    _one_line_error(code, capsys.readouterr(), what, str(path))


# ---- the API writers ---------------------------------------------------------------------------------
def _result():
    from asymptotics.results import Result

    return Result(rows=[{"psi1": 1.0, "risk": 0.5}], meta={})


@pytest.mark.parametrize("case", ["proc", "file_as_folder", "missing_folder", "folder_as_file", "unknown_suffix",
                                  "no_suffix"])
def test_result_write_raises_one_parameter_error(case, env):
    import asymptotics as asy

    tmp = env["tmp"]
    path = {"unknown_suffix": tmp / "x.xlsx", "no_suffix": tmp / "x"}.get(case) or _bad_locations("file", tmp, ".json")[case]
    for writer in (_result(), asy.activation("tanh")):
        with pytest.raises(ParameterError) as info:
            writer.write(path)
        msg = str(info.value)
        assert "\n" not in msg and str(path) in msg and "path" in msg and ".part" not in msg
        if "suffix" in case:
            assert "csv, .json, .parquet" in msg and "fmt=" in msg
    assert not (tmp / "nope").exists() and not (tmp / "x").exists()


def test_result_write_format_and_suffix(tmp_path):
    from asymptotics.results import Result

    res = _result()
    assert Result.read(res.write(tmp_path / "r.json")).rows == res.rows
    res.write(tmp_path / "r.txt", "csv")  # a suffix that names no format: the format decides
    assert (tmp_path / "r.txt").read_text().splitlines()[0] == "psi1,risk"
    with pytest.raises(ParameterError, match="fmt"):
        res.write(tmp_path / "r.csv", "xlsx")
    with pytest.raises(ParameterError, match="names parquet"):  # it would not read back
        res.write(tmp_path / "r.parquet", "json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.txt"]


@pytest.mark.parametrize("case", ["binary", "latin", "directory", "missing", "suffix"])
def test_result_read_raises_one_parameter_error(case, tmp_path):
    from asymptotics.results import Result

    path = tmp_path / "r.txt" if case == "suffix" else _inputs(tmp_path)[case]
    if case == "suffix":
        path.write_text("a,b\n")
    with pytest.raises(ParameterError) as info:
        Result.read(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_interrupted_write_keeps_the_previous_file(tmp_path, monkeypatch):
    from asymptotics import atomic

    path = tmp_path / "r.json"
    atomic.write_text(path, "before")

    def interrupt(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic.write_text(path, "after")
    assert path.read_text() == "before" and [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.mark.parametrize("code, words", [(errno.EROFS, "read-only file system"), (errno.ENOSPC, "No space"),
                                         (errno.EACCES, "Permission denied")])
def test_a_failing_write_names_the_path_never_the_temporary(tmp_path, monkeypatch, code, words):
    from asymptotics import atomic

    path = tmp_path / "r.json"
    atomic.write_text(path, "before")

    def fail(src, dst):
        raise OSError(code, os.strerror(code), str(src))

    monkeypatch.setattr(atomic.os, "replace", fail)
    with pytest.raises(ParameterError) as info:
        atomic.write_text(path, "after", name="--out")
    msg = str(info.value)
    assert msg.startswith(f"invalid --out='{path}'") and words in msg and ".part" not in msg, msg
    assert isinstance(info.value, OSError) and info.value.errno == code  # `except OSError` still catches it
    assert path.read_text() == "before" and [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_output_folders_are_created_with_their_parents_and_checked(tmp_path):
    from asymptotics.atomic import output_dir

    made = output_dir(tmp_path / "a" / "b", "--out")
    assert made.is_dir() and not list(made.iterdir())  # the writability probe leaves nothing
    (tmp_path / "f").write_text("x")
    for bad in (tmp_path / "f", tmp_path / "f" / "sub", Path("/proc/asymptotics-no")):
        with pytest.raises(ParameterError, match="--out"):
            output_dir(bad, "--out")


def test_a_cache_folder_that_cannot_be_created_is_one_line(tmp_path, monkeypatch):
    from asymptotics._cache import cache_dir

    (tmp_path / "f").write_text("x")
    for bad in (tmp_path / "f", Path("/proc/asymptotics-no")):
        monkeypatch.setenv("ASYMPTOTICS_CACHE_DIR", str(bad))
        with pytest.raises(ParameterError, match="ASYMPTOTICS_CACHE_DIR") as info:
            cache_dir("constants")
        assert "\n" not in str(info.value) and str(bad) in str(info.value)
    monkeypatch.setenv("ASYMPTOTICS_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir("constants") == tmp_path / "c" / "constants" and (tmp_path / "c" / "constants").is_dir()


def test_sweep_and_reproduce_apis_refuse_a_file_as_their_folder(tmp_path):
    import asymptotics as asy
    from asymptotics.reproduce import reproduce

    plain = tmp_path / "plain.json"
    plain.write_text("{}")
    cfg = {"quantity": "gaussian.moments", "out": str(plain), "fixed": {"activation": "erf"}, "grid": {"scale": [1.0]}}
    with pytest.raises(ParameterError, match="not an existing file"):
        asy.sweep(cfg)
    with pytest.raises(ParameterError, match="not an existing file"):
        reproduce(plain, "toy", names=["tab_srf_grid"], progress=False, use_cache=False)
    assert plain.read_text() == "{}"


def test_sweep_manifest_that_is_not_json_is_one_line(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / "sweep.json").write_bytes(b"\x89PNG\x00")
    config = tmp_path / "m.toml"
    config.write_text('quantity = "gaussian.moments"\n[fixed]\nactivation = "erf"\n[grid]\nscale = [1.0]\n')
    code = main(["sweep", str(config), "--out", str(out), "--no-progress"])
    _one_line_error(code, capsys.readouterr(), str(out), "--out")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
