"""Where the remote is: an fsspec file system and a root path, opened from ``[remote] url``.

Every store people keep runs on is reached through fsspec, so the engine has one transport:

* a path or ``file://`` URL: a cluster's shared (network) file system, a mounted disk;
* ``sftp://[user@]host[:port]/path``: any machine with OpenSSH (paramiko);
* ``s3://bucket/prefix``: AWS S3 and S3-compatible stores (s3fs);
* any other protocol fsspec knows, where its package is installed.

Credentials never come from the project's files: an SFTP remote reads ``~/.ssh/config`` (host
alias, port, user, ``IdentityFile``, ``UserKnownHostsFile``), the SSH agent and ``~/.ssh/id_*``,
and accepts only a host key that ``known_hosts`` already holds (a changed or unknown key is a
one-line error, never trusted on first use); S3 uses botocore's chain (``AWS_*`` variables,
``~/.aws``, instance roles). A URL with a password in it is refused.

Operations raise :class:`RemoteError` with one line naming the remote, the path and what went
wrong, "full" when the store said so (ENOSPC, EFBIG, EDQUOT, a quota error), "connection lost"
when the transport broke.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from evidence.core.errors import BadInputError, EvidenceError
from evidence.core.project import Project
from evidence.core.settings import SETTINGS_FILE, Settings, load_settings

#: errno values a store reports when it cannot hold more.
FULL = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


class RemoteError(EvidenceError):
    """The remote could not be reached or refused an operation; one line says which and why."""


class RemoteFull(RemoteError):
    """The remote has no room for what was sent."""


class ConnectionLost(RemoteError):
    """The transport broke in the middle of an operation."""


def describe(error: BaseException) -> tuple[type[RemoteError], str]:
    """The kind of failure and its text, from whatever fsspec's backend raised."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    code = getattr(error, "errno", None)
    lowered = text.lower()
    if code in FULL or "no space" in lowered or "quota" in lowered or "file too large" in lowered \
            or "entitytoolarge" in lowered:
        return RemoteFull, f"the remote is full ({text})"
    transport = (EOFError, ConnectionError, TimeoutError)
    if isinstance(error, transport) or "socket is closed" in lowered or "connection" in lowered \
            or type(error).__name__ in {"ProxyError", "EndpointConnectionError",
                                        "ClientConnectorError", "ServerDisconnectedError"}:
        return ConnectionLost, f"connection lost ({text})"
    return RemoteError, text


@dataclass
class Location:
    """An open remote: the fsspec file system, the root path on it and the URL to name it by."""

    url: str
    fs: Any
    root: str

    @property
    def atomic_writes(self) -> bool:
        """Whether one write is all-or-nothing by itself (object stores); else write a temporary
        and rename it (file systems, SFTP)."""
        protocol = self.fs.protocol
        names = protocol if isinstance(protocol, tuple | list) else (protocol,)
        return not ({"file", "local", "sftp", "ssh"} & set(names))

    def path(self, *parts: str) -> str:
        return "/".join([self.root.rstrip("/"), *parts]) if self.root else "/".join(parts)

    @contextmanager
    def errors(self, what: str, where: str) -> Iterator[None]:
        """Turn a backend's exception into one :class:`RemoteError` line."""
        try:
            yield
        except RemoteError:
            raise
        except FileNotFoundError:
            raise
        except Exception as error:
            kind, text = describe(error)
            raise kind(f"remote {self.url}: {what} {where}: {text}") from error


def _check_url(url: str, source: object) -> None:
    parts = urlsplit(url)
    if parts.password:
        raise BadInputError(source, "the remote URL holds a password; credentials belong in the "
                            "environment, ~/.ssh or the provider's config, never in the project",
                            field="remote.url")


def _ssh_options(host: str, user: str | None, port: int | None) -> dict[str, Any]:
    """paramiko connect options for ``host`` from ``~/.ssh/config`` (what ``ssh host`` uses)."""
    import paramiko

    options: dict[str, Any] = {}
    config_file = Path.home() / ".ssh" / "config"
    found: dict[str, Any] = {}
    if config_file.is_file():
        config = paramiko.SSHConfig.from_path(str(config_file))
        found = dict(config.lookup(host))
    options["hostname"] = found.get("hostname", host)
    options["port"] = port or int(found.get("port", 22))
    if user or found.get("user"):
        options["username"] = user or found.get("user")
    if found.get("identityfile"):
        options["key_filename"] = [os.path.expanduser(p) for p in found["identityfile"]]
    known = found.get("userknownhostsfile", "~/.ssh/known_hosts").split()
    options["known_hosts"] = [os.path.expanduser(p) for p in known]
    return options


def _known_host_policy(files: list[str]) -> Any:
    """Accept exactly the host keys ``known_hosts`` holds; anything else is refused, in one line."""
    import paramiko

    class KnownHostsOnly(paramiko.MissingHostKeyPolicy):
        def missing_host_key(self, client: Any, hostname: str, key: Any) -> None:
            keys = paramiko.HostKeys()
            for name in files:
                if os.path.isfile(name):
                    keys.load(name)
            known = keys.lookup(hostname) or {}
            if key.get_name() in known and known[key.get_name()] == key:
                return
            if known:
                raise paramiko.SSHException(f"the host key of {hostname} differs from known_hosts "
                                            "(refusing: it may not be the machine you think)")
            raise paramiko.SSHException(f"{hostname} is not in known_hosts ({', '.join(files)}); "
                                        "connect once with `ssh` to check and accept its key")

    return KnownHostsOnly()


def _open_sftp(url: str) -> tuple[Any, str]:
    from fsspec.implementations.sftp import SFTPFileSystem

    parts = urlsplit(url)
    options = _ssh_options(parts.hostname or "", parts.username, parts.port)
    hostname = options.pop("hostname")
    policy = _known_host_policy(options.pop("known_hosts"))
    fs = SFTPFileSystem(hostname, host_key_policy=policy, timeout=30, banner_timeout=30,
                        auth_timeout=30, **options)
    return fs, parts.path or "/"


def _open(url: str, settings: Settings, project: Project) -> tuple[Any, str]:
    import fsspec

    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt"):
        path = Path(parts.path if scheme == "file" else url).expanduser()
        if not path.is_absolute():  # relative to the project, as every path in evidence.toml
            path = Path(os.path.normpath(project.root.absolute() / path))
        return fsspec.filesystem("file"), path.as_posix()
    if scheme in ("sftp", "ssh"):
        return _open_sftp(url)
    if scheme in ("s3", "s3a"):
        endpoint = settings.remote.get("endpoint_url") or os.environ.get("AWS_ENDPOINT_URL")
        kwargs: dict[str, Any] = {"client_kwargs": {"endpoint_url": endpoint}} if endpoint else {}
        fs = fsspec.filesystem("s3", skip_instance_cache=True, **kwargs)
        return fs, f"{parts.netloc}{parts.path}".rstrip("/")
    fs, path = fsspec.core.url_to_fs(url)
    return fs, str(path)


def open_remote(project: Project, settings: Settings | None = None) -> Location | None:
    """The project's remote, opened; None when it has none."""
    settings = settings or load_settings(project)
    url = settings.remote_url
    if not url:
        return None
    source = project.root / SETTINGS_FILE
    _check_url(url, source)
    try:
        fs, root = _open(url, settings, project)
    except ImportError as error:
        raise BadInputError(source, f"the remote {url} needs a package that is not installed "
                            f"({error.name}); pip install 'evidence[remote]'", field="remote.url") from None
    except ValueError as error:
        raise BadInputError(source, f"cannot use the remote {url}: {error}", field="remote.url") from None
    except Exception as error:
        kind, text = describe(error)
        raise kind(f"remote {url}: cannot connect: {text}",
                   hint="check the URL, the network and your credentials (~/.ssh, AWS_*)") from None
    return Location(url=url, fs=fs, root=root)

