"""A tiny TCP proxy in front of PostgreSQL, so a test can stage an outage (a database restart):
drop every connection and refuse new ones for a while, then accept again."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class TCPProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.listener.listen(64)
        self.down = threading.Event()
        self.closed = threading.Event()
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down.is_set():
                client.close()  # refused while "restarting"
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.update({client, upstream})
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                self._close(sock)

    def _close(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.discard(sock)
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()

    def outage(self, seconds: float) -> None:
        """Kill every open connection and refuse new ones for `seconds`."""
        self.down.set()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            self._close(sock)
        time.sleep(seconds)
        self.down.clear()

    def close(self) -> None:
        self.closed.set()
        self.listener.close()
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:
            self._close(sock)
