"""``pyjdwp-mcp``'s flags: the three time limits take positive, finite seconds, refused at start otherwise.

``nan`` once passed (``nan <= 0`` is false) and failed every session at once ("deadline must not be NaN"),
or silently disabled the pause and idle limits; ``inf`` disabled them too.
"""

from __future__ import annotations

import pytest

from pyjdwp_server.cli import parse_args

FLAGS = ("--pause-limit-s", "--idle-limit-s", "--session-limit-s")


@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "0", "-1", "ten", ""])
def test_time_limits_refuse_what_is_not_a_positive_finite_number(flag: str, value: str,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_args([f"{flag}={value}"])  # "=": argparse would read a bare "-inf" as an option
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}:" in err and repr(value) in err


@pytest.mark.parametrize("flag", FLAGS)
def test_time_limits_take_positive_seconds(flag: str) -> None:
    args = parse_args([flag, "0.25"])
    assert getattr(args, flag.removeprefix("--").replace("-", "_")) == 0.25
    defaults = parse_args([])
    assert (defaults.pause_limit_s, defaults.idle_limit_s, defaults.session_limit_s) == (60.0, 300.0, 1800.0)


def test_allow_invoke_is_off_unless_given() -> None:
    assert parse_args([]).allow_invoke is False
    assert parse_args(["--allow-invoke"]).allow_invoke is True
