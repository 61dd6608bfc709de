"""JupyterHub for a lab or a small class on this machine (`make hub`, which runs hub/launch.py).

Each student is a system account (created on first sight, home 0700) whose server runs as that
account (LocalProcessSpawner), so students cannot read each other's work; each picks a password
on first login (FirstUseAuthenticator), and only the names in the class list (or added by the
instructor on the admin page) can log in. Each lands in notebook 00 of their own copy of the
workbook (hub/singleuser.py copies it into ~/dpviz-workbook); servers idle for an hour are
stopped (jupyterhub-idle-culler). Settings come from the environment, which hub/launch.py fills:

HUB_IP, HUB_PORT         where students connect (127.0.0.1:8000; HUB_IP=0.0.0.0 for a room)
HUB_SSL_CERT, HUB_SSL_KEY  a certificate and its key: HTTPS instead of HTTP
HUB_STATE                the hub's database, cookie secret and password hashes (hub/state, 0700)
HUB_STUDENTS             the class list: one user name a line, # comments (hub/students.txt)
HUB_ADMIN                the instructor's user name ("instructor"; empty: no admin)
HUB_IDLE_TIMEOUT         seconds without activity before a server is stopped (3600)
HUB_API_PORT, HUB_PROXY_API_PORT   the hub's and the proxy's internal ports, on 127.0.0.1
"""

from __future__ import annotations

import os
import pwd
import stat
import sys
from pathlib import Path

from firstuseauthenticator import FirstUseAuthenticator
from jupyterhub.auth import LocalAuthenticator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from launch import (
    HUB,
    NAME_PATTERN,
    PROXY,
    WORKBOOK,
    class_list,
    first_regular_uid,
    workbook_library,
)

c = get_config()  # noqa: F821 (JupyterHub runs this file with get_config defined)

# the students' Python: the .venv's, or its twin on a Python they may run (hub/launch.py)
PYTHON = os.environ.get("HUB_PYTHON", sys.executable)
STATE = Path(os.environ.get("HUB_STATE", HUB / "state")).resolve()
STUDENTS = Path(os.environ.get("HUB_STUDENTS", HUB / "students.txt"))
ADMIN = os.environ.get("HUB_ADMIN", "instructor").strip().lower()


class LocalFirstUseAuthenticator(LocalAuthenticator, FirstUseAuthenticator):
    """First-use passwords for accounts that are (or become) system accounts of their own.

    LocalAuthenticator creates the system account when the hub first sees a user (at start-up
    for the class list, or when the instructor adds a name on the admin page); it never runs a
    server as a system account that already existed below UID_MIN (root, daemon, ...).
    """

    async def add_user(self, user):
        """Refuse system accounts, then create the user's own account if missing."""
        try:
            uid = pwd.getpwnam(user.name).pw_uid
        except KeyError:
            uid = None
        if uid is not None and uid < first_regular_uid():
            raise ValueError(f"{user.name!r} is a system account (uid {uid}): not a student")
        await super().add_user(user)


c.JupyterHub.authenticator_class = LocalFirstUseAuthenticator
c.LocalAuthenticator.create_system_users = True
# useradd, on every Linux (Debian's adduser is not); the home's mode is set by the hook below
c.LocalAuthenticator.add_user_cmd = ["useradd", "--create-home", "--shell", "/bin/bash"]
c.Authenticator.username_pattern = NAME_PATTERN
c.Authenticator.allowed_users = set(class_list(STUDENTS))
c.Authenticator.admin_users = {ADMIN} if ADMIN else set()
c.Authenticator.allow_all = False  # only the class list, the admin and users added by the admin
c.Authenticator.allow_existing_users = True  # a name added on the admin page may log in
# Only known users may claim a password, so a stranger cannot take a name nobody used yet;
# the instructor resets a forgotten password by deleting the user on the admin page and adding
# them again (the account and its home stay).
c.FirstUseAuthenticator.create_users = False
c.FirstUseAuthenticator.dbm_path = str(STATE / "passwords.dbm")

# Where students connect, and the hub's own files
ip = os.environ.get("HUB_IP", "127.0.0.1")
# HTTPS when given a certificate and its key (a room's network: else passwords cross it in clear)
if os.environ.get("HUB_SSL_CERT"):
    c.JupyterHub.ssl_cert = os.environ["HUB_SSL_CERT"]
    c.JupyterHub.ssl_key = os.environ["HUB_SSL_KEY"]
scheme = "https" if os.environ.get("HUB_SSL_CERT") else "http"
c.JupyterHub.bind_url = f"{scheme}://{ip}:{os.environ.get('HUB_PORT', '8000')}/"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{os.environ.get('HUB_API_PORT', '8081')}"
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops every student's server
c.ConfigurableHTTPProxy.command = [str(PROXY)]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{os.environ.get('HUB_PROXY_API_PORT', '8001')}"
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
# Quiet by default (make hub prints its URL last): HUB_LOG_LEVEL=INFO shows every request
VERBOSE = os.environ.get("HUB_LOG_LEVEL", "WARN").upper() in ("INFO", "DEBUG")
c.ConfigurableHTTPProxy.log_level = "info" if VERBOSE else "warn"

# Each student's server: this checkout's packages (dpviz importable), run as the student, started
# by hub/singleuser.py, which copies the workbook on first start; it opens notebook 00.
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [PYTHON, str(HUB / "singleuser.py")]
c.Spawner.notebook_dir = f"~/{WORKBOOK}"
c.Spawner.default_url = "/lab/tree/00_start_here.ipynb"
# Kernels talk to their server over Unix sockets in the student's runtime folder (inside the
# 0700 home): on TCP, any local account could subscribe to a kernel's output port.
c.Spawner.args = ["--KernelManager.transport=ipc"]
c.Spawner.start_timeout = 120  # a loaded machine: 30 students starting at once
c.Spawner.http_timeout = 90
c.Spawner.environment = {
    "PATH": f"{Path(PYTHON).parent}:/usr/local/bin:/usr/bin:/bin",  # a terminal's python: ours
    # one thread per kernel: a room's kernels do not wait for each other's cores (README)
    "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
    "DPVIZ_CACHE": lambda spawner: str(Path(pwd.getpwnam(spawner.user.name).pw_dir)
                                       / ".dpviz_cache"),
}
# Served from the students' copy (make student): its dpviz, without the key, first on the path
if workbook_library() is not None:
    c.Spawner.environment["PYTHONPATH"] = str(workbook_library())


def private_home(spawner) -> None:
    """Before each start: the student's home is theirs alone (0700), whatever created it."""
    account = pwd.getpwnam(spawner.user.name)
    if account.pw_uid < first_regular_uid():
        raise ValueError(f"{spawner.user.name!r} is a system account: no server for it")
    home = Path(account.pw_dir)
    info = home.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != account.pw_uid:
        raise ValueError(f"{home} is not a folder owned by {spawner.user.name}")
    os.chmod(home, 0o700)


c.Spawner.pre_spawn_hook = private_home

# Idle culling: a server without activity for HUB_IDLE_TIMEOUT seconds is stopped (its files
# stay); checked every 5 minutes. The culler runs as nobody, with only the scopes it needs.
c.JupyterHub.services = [{
    "name": "idle-culler",
    "user": "nobody",
    "cwd": "/",
    "command": [PYTHON, "-m", "jupyterhub_idle_culler",
                f"--timeout={int(os.environ.get('HUB_IDLE_TIMEOUT', '3600'))}",
                "--cull-every=300", f"--IdleCuller.log_level={'INFO' if VERBOSE else 'ERROR'}"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
