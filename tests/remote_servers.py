"""Real remote servers for the remote's tests, on 127.0.0.1 only.

* :func:`start_sshd`: OpenSSH's sshd (Debian's ``openssh-server``) as the current user, on a free
  port, with a generated host key and an authorized client key in a temporary folder, plus a
  ``~/.ssh`` (config with a host alias, known_hosts) in a temporary HOME: the remote URL is
  ``sftp://<alias>/<path>`` and every credential comes from ``~/.ssh``, as for a user.
* :func:`start_s3`: moto's standalone S3 server (what s3fs's own tests use).
* :class:`CuttingProxy`: a TCP forwarder that drops the connection after a byte budget (a
  connection that breaks mid-push, for real, below SSH).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
ALIAS = "evidence-test-remote"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sshd_missing() -> str | None:
    """Why sshd cannot be started here, or None."""
    if not (os.path.exists(SSHD) and os.path.exists(SSH_KEYGEN)):
        return "OpenSSH's sshd is not installed (apt-get install openssh-server)"
    if not os.path.isdir("/run/sshd"):
        if os.geteuid() != 0:
            return "sshd needs its privilege separation folder /run/sshd (created by the package)"
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    return None


@dataclass
class Sshd:
    process: subprocess.Popen[bytes]
    port: int
    home: Path
    log: Path

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def config_for(self, port: int) -> None:
        """Point the host alias at ``port`` (this sshd's, or a proxy's in front of it)."""
        ssh = self.home / ".ssh"
        user = os.environ.get("USER") or __import__("getpass").getuser()
        (ssh / "config").write_text(
            f"Host {ALIAS}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n"
            f"  IdentityFile {ssh / 'id_ed25519'}\n  UserKnownHostsFile {ssh / 'known_hosts'}\n")
        host_key = (self.home.parent / "sshd" / "host_ed25519.pub").read_text().split()
        (ssh / "known_hosts").write_text(
            f"[127.0.0.1]:{self.port} {host_key[0]} {host_key[1]}\n"
            f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")


def start_sshd(base: Path) -> Sshd:
    """sshd on a free port of 127.0.0.1 accepting a generated key of the current user."""
    server = base / "sshd"
    home = base / "home"
    ssh = home / ".ssh"
    server.mkdir(parents=True)
    ssh.mkdir(parents=True, mode=0o700)
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-f", str(server / "host_ed25519")],
                   check=True)
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-f", str(ssh / "id_ed25519")],
                   check=True)
    (server / "authorized_keys").write_text((ssh / "id_ed25519.pub").read_text())
    (server / "authorized_keys").chmod(0o600)
    port = free_port()
    config = server / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {server / 'host_ed25519'}\n"
        f"PidFile {server / 'sshd.pid'}\nAuthorizedKeysFile {server / 'authorized_keys'}\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\n"
        "Subsystem sftp internal-sftp\nMaxStartups 50\n")
    log = server / "sshd.log"
    with log.open("wb") as sink:  # the child keeps its own descriptor
        process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=subprocess.DEVNULL,
                                   stderr=sink)
    sshd = Sshd(process, port, home, log)
    sshd.config_for(port)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited: {log.read_text()}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return sshd
        time.sleep(0.05)
    sshd.stop()
    raise RuntimeError("sshd did not listen within 20 s")


def start_s3() -> tuple[object, str]:
    """moto's S3 server on a free port of 127.0.0.1; (server, endpoint URL)."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    return server, f"http://{host}:{port}"


@dataclass
class CuttingProxy:
    """Forward 127.0.0.1:<port> to ``target``; after ``budget`` bytes from the client, drop it."""

    target: int
    budget: int | None = None
    forwarded: int = 0
    port: int = 0
    _sock: socket.socket = field(default_factory=socket.socket)

    def __post_init__(self) -> None:
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(8)
        self.port = int(self._sock.getsockname()[1])
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, upstream: bool) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if upstream:
                    if self.budget is not None and self.forwarded + len(data) > self.budget:
                        break  # the line goes dead mid-transfer
                    self.forwarded += len(data)
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        self._sock.close()
