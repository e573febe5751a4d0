"""Outgoing mail behind one small interface: an outbox folder by default, SMTP when configured.

These are the delivery back-ends of the mail outbox (app/outbox.py): only its worker calls
`send`, never a request. The outbox folder makes `make run` work offline: each message is a
.eml file under var/outbox and a line on the console with its subject and recipient.
"""

from __future__ import annotations

import smtplib
import ssl
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Protocol

from app.settings import Settings


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    text: str
    headers: tuple[tuple[str, str], ...] = ()


class Mailer(Protocol):
    def send(self, mail: Mail) -> None: ...


def _message(mail: Mail, sender: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = mail.to
    message["Subject"] = mail.subject
    message["Date"] = datetime.now(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000")
    message["Message-ID"] = make_msgid(domain="prefill.local")
    for name, value in mail.headers:
        message[name] = value
    message.set_content(mail.text)
    return message


class OutboxMailer:
    def __init__(self, directory: Path, sender: str) -> None:
        self.directory = directory
        self.sender = sender

    def send(self, mail: Mail) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        path = self.directory / f"{stamp}.eml"
        path.write_bytes(bytes(_message(mail, self.sender)))
        print(f"[mail] to {mail.to}: {mail.subject} → {path}", flush=True)


class SMTPMailer:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def send(self, mail: Mail) -> None:
        settings = self.settings
        with smtplib.SMTP(
            settings.smtp_host, settings.smtp_port, timeout=settings.smtp_timeout
        ) as smtp:
            if settings.smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
            smtp.send_message(_message(mail, settings.mail_from))


class MemoryMailer:
    """Keeps messages in a list (tests read them)."""

    def __init__(self) -> None:
        self.sent: list[Mail] = []
        self._lock = threading.Lock()

    def send(self, mail: Mail) -> None:
        with self._lock:
            self.sent.append(mail)


def make_mailer(settings: Settings) -> Mailer:
    if settings.mailer == "smtp":
        return SMTPMailer(settings)
    if settings.mailer == "memory":
        return MemoryMailer()
    return OutboxMailer(settings.outbox_dir, settings.mail_from)
