"""The `prefill` command: serve, worker, db upgrade, content check, check, size, plan, users."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from app.settings import Settings

if TYPE_CHECKING:
    from app.db.migrate import Upgraded

Handler = Callable[[argparse.Namespace], int]


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.web.access_log import logging_config

    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        # The app reads X-Forwarded-* itself, from PREFILL_FORWARDED_ALLOW_IPS only
        # (app/web/client_address.py); uvicorn would trust loopback by default.
        proxy_headers=False,
        timeout_graceful_shutdown=20,
        log_level=args.log_level,
        log_config=logging_config(),  # reset and unsubscribe tokens kept out of the access log
    )
    return 0


def _worker(args: argparse.Namespace) -> int:
    """Send the mail outbox until stopped (or once, with --once)."""
    import signal
    import threading

    from app.db.session import Database
    from app.mail import make_mailer
    from app.mail_worker import MailWorker

    settings = Settings()
    database = Database(settings.database_url, pool_size=2, max_overflow=2)
    worker = MailWorker(database, make_mailer(settings), poll_seconds=args.poll)
    try:
        if args.once:
            print(f"Sent or retried {worker.drain()} message(s).")
            return 0
        stopped = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stopped.set())
        worker.start()
        print(f"Sending mail from the outbox ({settings.mailer}); Ctrl-C stops.", flush=True)
        stopped.wait()
        worker.stop()
        return 0
    finally:
        database.dispose()


def _db_upgrade(args: argparse.Namespace) -> int:
    from app.db.migrate import upgrade

    settings = Settings()
    done = upgrade(settings.database_url, args.revision)
    print(_upgrade_message(settings.database_url, done))
    return 0


def _upgrade_message(database_url: str, done: Upgraded) -> str:
    from sqlalchemy.engine import make_url

    url = make_url(database_url)
    where = url.database if url.get_backend_name() == "sqlite" else _redacted(database_url)
    migrations = f"{done.applied} migration{'' if done.applied == 1 else 's'}"
    if done.created:
        return f"Created {where} and applied {migrations}: the database is at {done.revision}."
    if done.applied:
        return f"Applied {migrations}: {where} is at {done.revision}."
    return f"{where} is already at {done.revision}: nothing to apply."


def _redacted(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _content_check(args: argparse.Namespace) -> int:
    from app.content.loader import ContentInvalid
    from app.main import load_site_content

    settings = Settings()
    root = args.path or settings.content_dir
    from app.attempt_checks.check import key_figure_problems

    try:
        store = load_site_content(root, check_exercises=True)
        problems = key_figure_problems(store.questions)
        if problems:
            raise ContentInvalid(problems)
    except ContentInvalid as error:
        print(error, file=sys.stderr)
        return 1
    print(
        f"Content OK: {len(store.tracks)} tracks, {len(store.questions)} questions, "
        f"{len(store.concepts)} concept cards, {len(store.exercises)} exercises, each "
        f"reference solution passing its tests and each kept wrong solution failing one ({root})."
    )
    return 0


def _check(args: argparse.Namespace) -> int:
    from app.content.loader import ContentInvalid
    from app.deploy_check import Finding, check_database, check_settings
    from app.main import load_site_content

    settings = Settings()
    findings = check_settings(settings, workers=args.workers) if args.deploy else []
    findings += check_database(settings)
    try:
        load_site_content(settings.content_dir)
    except ContentInvalid as error:
        findings.append(
            Finding(
                "error",
                f"content is invalid ({len(error.errors)} errors): run `prefill content check`",
            )
        )
    for finding in findings:
        print(finding, file=sys.stderr if finding.level == "error" else sys.stdout)
    errors = [f for f in findings if f.level == "error"]
    if errors:
        print(
            f"{len(errors)} problem(s) must be fixed before this is safe to serve.", file=sys.stderr
        )
        return 1
    print("Deployment checks passed." if args.deploy else "Checks passed.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="prefill", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve the site (uvicorn)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(handler=_serve)

    worker = commands.add_parser(
        "worker", help="send queued mail (run it when app processes use PREFILL_MAIL_WORKER=off)"
    )
    worker.add_argument("--once", action="store_true", help="send what is due now, then exit")
    worker.add_argument(
        "--poll", type=float, default=5.0, help="seconds between looks at the outbox (default 5)"
    )
    worker.set_defaults(handler=_worker)

    db = commands.add_parser("db", help="database commands")
    db_commands = db.add_subparsers(dest="db_command", required=True, metavar="COMMAND")
    upgrade = db_commands.add_parser("upgrade", help="apply migrations to DATABASE_URL")
    upgrade.add_argument("revision", nargs="?", default="head")
    upgrade.set_defaults(handler=_db_upgrade)

    content = commands.add_parser("content", help="content commands")
    content_commands = content.add_subparsers(dest="content_command", required=True)
    check = content_commands.add_parser("check", help="validate every file under content/")
    check.add_argument("path", nargs="?", type=_path, help="content directory (default: settings)")
    check.set_defaults(handler=_content_check)

    check_cmd = commands.add_parser("check", help="check the database, content and settings")
    check_cmd.add_argument(
        "--deploy", action="store_true", help="also refuse unsafe production settings"
    )
    check_cmd.add_argument(
        "--workers", type=int, default=1, help="worker processes you will run (default 1)"
    )
    check_cmd.set_defaults(handler=_check)

    from app.accounts.cli import register as register_users
    from app.sizing.terminal.cli import register as register_size
    from app.sizing.terminal.plan_cli import register as register_plan

    register_size(commands)
    register_plan(commands)
    register_users(commands)
    return parser


def _path(value: str):  # type: ignore[no-untyped-def]
    from pathlib import Path

    return Path(value)


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """``parse_args``, but a stray argument is reported by the subcommand that was given it, with
    that subcommand's usage (argparse's own top-level error shows only ``prefill COMMAND``)."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        leaf = parser
        while sub := next(
            (a for a in leaf._actions if isinstance(a, argparse._SubParsersAction)), None
        ):
            chosen = sub.choices.get(getattr(args, sub.dest, None) or "")
            if chosen is None:
                break
            leaf = chosen
        leaf.error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse(parser, argv)
    handler: Handler = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
