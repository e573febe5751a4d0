"""A tiny SMTP relay for tests: accepts mail, or plays a relay that is down or hangs."""

from __future__ import annotations

import socketserver
import threading
import time
from email import message_from_bytes
from email.message import Message


class _Handler(socketserver.StreamRequestHandler):
    server: SMTPStub.Server

    def handle(self) -> None:
        stub = self.server.stub
        if stub.mode == "hang":  # accepts the connection, never greets: a stalled relay
            while stub.mode == "hang" and not stub.closing.is_set():
                time.sleep(0.05)
            return
        self._reply("220 stub ESMTP")
        while True:
            line = self.rfile.readline()
            if not line:
                return
            command = line.decode("ascii", "replace").strip().upper()
            if command.startswith(("EHLO", "HELO")):
                self._reply("250 stub")
            elif command.startswith(("MAIL FROM", "RCPT TO", "RSET", "NOOP")):
                self._reply("250 OK")
            elif command == "DATA":
                self._reply("354 go ahead")
                lines = []
                while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                    lines.append(chunk[1:] if chunk.startswith(b"..") else chunk)
                stub.received.append(message_from_bytes(b"".join(lines)))
                self._reply("250 queued")
            elif command == "QUIT":
                self._reply("221 bye")
                return
            else:
                self._reply("502 not implemented")

    def _reply(self, text: str) -> None:
        self.wfile.write(text.encode() + b"\r\n")
        self.wfile.flush()


class SMTPStub:
    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True
        allow_reuse_address = True
        stub: SMTPStub

    def __init__(self, mode: str = "accept") -> None:
        self.mode = mode  # "accept" or "hang"
        self.received: list[Message] = []
        self.closing = threading.Event()
        self.server = SMTPStub.Server(("127.0.0.1", 0), _Handler)
        self.server.stub = self
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> SMTPStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()
