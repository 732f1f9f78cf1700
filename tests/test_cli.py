"""The command line's parsing (corral.cli, argparse): every command and option reaches its
function with the value it stands for, and usage mistakes are reported like every other input
mistake (`error: ...` on stderr, exit status 2, nothing written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import corral_cli
from corral import cli
from corral.compare.buckets import DEFAULT_BUCKETS


@pytest.fixture
def calls(monkeypatch) -> list[tuple[str, dict]]:
    """Replaces every command with a recorder of its keyword arguments."""
    seen: list[tuple[str, dict]] = []
    for name in ("run", "reproduce", "sweep", "compare", "emulate", "version"):

        def record(_name=name, **kwargs):
            seen.append((_name, kwargs))

        record.__name__ = name
        monkeypatch.setattr(cli, name, record)
    return seen


def test_every_option_reaches_its_command(calls) -> None:
    cli._dispatch(
        [
            "run",
            "s.toml",
            "-o",
            "out",
            "-s",
            "seed=2",
            "--set",
            "duration=1ms",
            "--no-plots",
            "--force",
            "--max-memory",
            "2GB",
            "--unset",
            "scheme",
            "--unset",
            "traffic.1",
        ]
    )
    cli._dispatch(["reproduce", "outcast", "--out", "o", "--seeds", "3", "--quick"])
    cli._dispatch(["sweep", "g.toml", "-o", "s", "--workers", "2"])
    cli._dispatch(["compare", "a", "b", "-o", "r", "--by", "transport.cc", "--by", "seed", "--buckets", "1KB,1MB"])
    cli._dispatch(["emulate", "s.toml", "-o", "e", "--scale", "10", "--kernel-cc", "bbr"])
    cli._dispatch(["version"])
    assert calls == [
        (
            "run",
            dict(
                scenario=Path("s.toml"),
                out=Path("out"),
                set_=["seed=2", "duration=1ms"],
                plots=False,
                force=True,
                max_memory="2GB",
                unset=["scheme", "traffic.1"],
            ),
        ),
        ("reproduce", dict(experiment="outcast", out=Path("o"), set_=None, force=False, max_memory=None, seeds=3, quick=True)),
        (
            "sweep",
            dict(
                sweep_file=Path("g.toml"), out=Path("s"), force=False, max_memory=None, scheduler=None, workers=2, max_runs=None
            ),
        ),
        (
            "compare",
            dict(
                folders=[Path("a"), Path("b")],
                out=Path("r"),
                force=False,
                by=["transport.cc", "seed"],
                buckets="1KB,1MB",
                plots=True,
            ),
        ),
        (
            "emulate",
            dict(scenario=Path("s.toml"), out=Path("e"), set_=None, force=False, scale=10.0, kernel_cc="bbr", unset=None),
        ),
        ("version", {}),
    ]


def test_defaults_match_the_functions(calls) -> None:
    cli._dispatch(["run", "s.toml", "-o", "out"])
    cli._dispatch(["reproduce", "hcc", "-o", "o"])
    cli._dispatch(["compare", "a", "-o", "r"])
    assert calls[0][1]["plots"] is True and calls[0][1]["set_"] is None
    assert calls[1][1]["seeds"] == 5 and calls[1][1]["quick"] is False
    assert calls[2][1]["buckets"] == ",".join(DEFAULT_BUCKETS) and calls[2][1]["plots"] is True


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["run", "s.toml"], "required: -o/--out"),
        (["run", "s.toml", "-o", "x", "--plot"], "unrecognized arguments: --plot"),  # no abbreviations
        (["reproduce", "outcast", "-o", "x", "--seeds", "0"], "--seeds: expected a finite value of at least 1, got 0"),
        (["reproduce", "outcast", "-o", "x", "--seeds", "two"], "--seeds: expected an integer, got 'two'"),
        (["sweep", "g.toml", "-o", "x", "--workers", "0"], "--workers: expected a finite value of at least 1"),
        (["emulate", "s.toml", "-o", "x", "--scale", "0.5"], "--scale: expected a finite value of at least 1.0, got 0.5"),
        (["emulate", "s.toml", "-o", "x", "--scale", "nan"], "--scale: expected a finite value of at least 1.0, got nan"),
        (["emulate", "s.toml", "-o", "x", "--scale", "inf"], "--scale: expected a finite value"),
        (["compare", "-o", "x"], "required: folders"),
        (["simulate"], "invalid choice: 'simulate'"),
    ],
)
def test_usage_mistakes_exit_2_with_an_error_line(calls, capsys, argv, expected) -> None:
    with pytest.raises(SystemExit) as stop:
        cli._dispatch(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: corral") and expected in err and err.count("\n") == 1, err
    assert calls == []


def test_help_lists_every_command_and_no_command_prints_it(capsys) -> None:
    cli._dispatch([])
    out = capsys.readouterr().out
    for name in ("run", "reproduce", "sweep", "compare", "emulate", "version"):
        assert f"    {name}" in out, out


def test_a_usage_mistake_through_the_process_writes_nothing(tmp_path) -> None:
    proc = corral_cli("run", tmp_path / "s.toml", "-o", tmp_path / "out", "--sett", "seed=1")
    assert proc.returncode == 2 and proc.stderr.startswith("error: corral run: unrecognized arguments: --sett")
    assert "Traceback" not in proc.stderr and list(tmp_path.iterdir()) == []
