"""`prefill`: a stray argument is reported by the subcommand that was given it, with its usage."""

from __future__ import annotations

import pytest

from app.cli import build_parser, parse


@pytest.mark.parametrize(
    ("argv", "usage", "error"),
    [
        (
            ["size", "llama-3.1-8b", "--enforce-eager", "yes"],
            "usage: prefill size ",
            "prefill size: error: unrecognized arguments: yes",
        ),
        (
            ["db", "upgrade", "head", "extra"],
            "usage: prefill db upgrade ",
            "prefill db upgrade: error: unrecognized arguments: extra",
        ),
    ],
)
def test_a_stray_argument_names_its_subcommand(capsys, argv, usage, error) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse(build_parser(), argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage) and err.rstrip().endswith(error)


def test_arguments_it_knows_parse_as_before() -> None:
    args = parse(build_parser(), ["size", "llama-3.1-8b", "--enforce-eager"])
    assert args.command == "size" and args.enforce_eager is True
