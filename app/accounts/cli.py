"""`prefill users create|promote|list` for operators."""

from __future__ import annotations

import argparse
import getpass
import sys

from app.accounts import service as accounts
from app.accounts.service import FormError
from app.db.models.accounts import ROLES
from app.db.session import Database
from app.settings import Settings


def _database() -> Database:
    return Database(Settings().database_url)


def _create(args: argparse.Namespace) -> int:
    password = sys.stdin.readline().rstrip("\n") if args.password_stdin else getpass.getpass()
    database = _database()
    try:
        with database.writer() as db, db.begin():
            user = accounts.create_user(
                db, email=args.email, display_name=args.name, password=password, role=args.role
            )
            if args.verified:
                accounts.mark_verified(db, user)
            print(f"Created {user.email} ({user.role}).")
    except FormError as error:
        for field, message in error.errors.items():
            print(f"{field}: {message}", file=sys.stderr)
        return 2
    finally:
        database.dispose()
    return 0


def _promote(args: argparse.Namespace) -> int:
    database = _database()
    try:
        with database.writer() as db, db.begin():
            user = accounts.set_role(db, args.email, args.role)
            print(f"{user.email} is now {user.role}.")
    except FormError as error:
        for message in error.errors.values():
            print(message, file=sys.stderr)
        return 2
    finally:
        database.dispose()
    return 0


def _list(args: argparse.Namespace) -> int:
    database = _database()
    try:
        with database.reader() as db:
            users = accounts.list_users(db, limit=args.limit)
            print(f"{'email':40} {'name':24} {'role':10} {'verified':9} created")
            for user in users:
                verified = "yes" if user.email_verified_at else "no"
                print(
                    f"{user.email:40} {user.display_name[:24]:24} {user.role:10} {verified:9} "
                    f"{user.created_at:%Y-%m-%d}"
                )
    finally:
        database.dispose()
    return 0


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    users = commands.add_parser("users", help="manage accounts")
    sub = users.add_subparsers(dest="users_command", required=True, metavar="COMMAND")
    create = sub.add_parser("create", help="create an account (asks for the password)")
    create.add_argument("email")
    create.add_argument("--name", required=True, help="display name")
    create.add_argument("--role", choices=ROLES, default="member")
    create.add_argument("--verified", action="store_true", help="mark the address confirmed")
    create.add_argument(
        "--password-stdin", action="store_true", help="read the password from stdin"
    )
    create.set_defaults(handler=_create)
    promote = sub.add_parser("promote", help="set an account's role")
    promote.add_argument("email")
    promote.add_argument("--role", choices=ROLES, default="moderator")
    promote.set_defaults(handler=_promote)
    listing = sub.add_parser("list", help="list accounts")
    listing.add_argument("--limit", type=int, default=200)
    listing.set_defaults(handler=_list)
