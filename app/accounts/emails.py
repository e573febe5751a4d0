"""The e-mails accounts send (plain text)."""

from __future__ import annotations

from app.mail import Mail


def verification(to: str, name: str, link: str) -> Mail:
    return Mail(
        to=to,
        subject="Confirm your e-mail address for Prefill",
        text=(
            f"Hi {name},\n\n"
            "Please confirm this address for your Prefill account by opening the link below.\n"
            "You can already read every answer; confirming lets us reach you about your account.\n\n"
            f"{link}\n\n"
            "The link works once and expires in 3 days. If you did not sign up, ignore this e-mail.\n"
        ),
    )


def password_reset(to: str, name: str, link: str) -> Mail:
    return Mail(
        to=to,
        subject="Reset your Prefill password",
        text=(
            f"Hi {name},\n\n"
            "Someone (hopefully you) asked to reset the password of this Prefill account.\n"
            "Open the link below to choose a new one:\n\n"
            f"{link}\n\n"
            "The link works once and expires in 1 hour. Setting a new password signs you out\n"
            "everywhere. If you did not ask for this, ignore this e-mail: nothing has changed.\n"
        ),
    )


def signup_attempt(to: str, forgot_link: str) -> Mail:
    return Mail(
        to=to,
        subject="Someone tried to sign up to Prefill with your address",
        text=(
            "Hi,\n\n"
            "Someone just tried to create a Prefill account with this e-mail address, which\n"
            "already has one. Nothing has changed on your account.\n\n"
            "If it was you, sign in; if you have forgotten the password, choose a new one here:\n\n"
            f"{forgot_link}\n\n"
            "If it was not you, you can ignore this e-mail.\n"
        ),
    )
