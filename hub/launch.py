"""`make hub`: check what JupyterHub needs, install the proxy on first use, start the hub.

Refuses, in one line, what cannot work: not root (the hub creates a system account per student
and runs each student's server as it), no node >= 20 or npm (the proxy, configurable-http-proxy,
is an npm package, installed by `npm ci` into hub/node_modules on first use), a checkout the
students' accounts cannot read, or a class list with a name that is not a valid account. Then
starts JupyterHub with hub/jupyterhub_config.py and, once it answers, prints its URL and how to
add students. `--prepare` stops after the checks and the install (exit 0, or 3 and one line).

The settings (see hub/jupyterhub_config.py) come from the environment: HUB_IP, HUB_PORT,
HUB_SSL_CERT, HUB_SSL_KEY, HUB_STATE, HUB_STUDENTS, HUB_ADMIN, HUB_IDLE_TIMEOUT, HUB_LOG_LEVEL,
HUB_API_PORT, HUB_PROXY_API_PORT. This module's helpers are shared with the config and
hub/singleuser.py, so it imports only the standard library at the top.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HUB = Path(__file__).resolve().parent
ROOT = HUB.parent
PROXY = HUB / "node_modules" / ".bin" / "configurable-http-proxy"
WORKBOOK = "dpviz-workbook"  # each student's copy, in their home
#: a valid account name on every Linux, lower case (JupyterHub lowercases user names)
NAME_PATTERN = r"^[a-z][a-z0-9_-]{0,31}$"
NODE_MAJOR = 20  # configurable-http-proxy 5.2.0's engines field
VERSION = "import platform; print(platform.python_version())"
UNAVAILABLE = 3  # the exit code of a refusal (tests/test_hub.py skips on it)


class HubError(Exception):
    """What the hub needs is missing here: one line says what and how to get it."""


def first_regular_uid() -> int:
    """UID_MIN of /etc/login.defs (1000 on Debian): accounts below it belong to the system."""
    try:
        for line in Path("/etc/login.defs").read_text().splitlines():
            fields = line.split()
            if len(fields) == 2 and fields[0] == "UID_MIN":
                return int(fields[1])
    except (OSError, ValueError):
        pass
    return 1000


def class_list(path: Path) -> list[str]:
    """The user names of the class list, lower case (a missing file: none)."""
    if not path.exists():
        return []
    names = (line.split("#", 1)[0].strip().lower() for line in path.read_text().splitlines())
    return [name for name in names if name]


def workbook_source() -> Path:
    """What each student gets a copy of: the students' copy build/student/ where it exists.

    Else the repository's notebooks/. A folder counts when it holds 00_start_here.ipynb (at its
    top, or in a notebooks/ folder inside it).
    """
    for folder in (ROOT / "build" / "student", ROOT / "build" / "student" / "notebooks"):
        if (folder / "00_start_here.ipynb").is_file():
            return folder
    return ROOT / "notebooks"


def workbook_library() -> Path | None:
    """The library the students' kernels import: the students' copy's, when it is served.

    ``build/student/`` (``make student``) holds dpviz without the instructor's key; when the
    notebooks come from there, the kernels import dpviz from there too (``PYTHONPATH``). None:
    the checkout's dpviz, installed in the kernels' environment.
    """
    copy = ROOT / "build" / "student"
    if (copy / "dpviz" / "__init__.py").is_file() and workbook_source().is_relative_to(copy):
        return copy
    return None


def setting(name: str, default: str) -> str:
    """An environment setting (an empty value counts as given, e.g. HUB_ADMIN=)."""
    return os.environ.get(name, default)


def check_root() -> None:
    """The hub creates accounts and starts servers as them: only root can."""
    if os.geteuid() != 0:
        raise HubError("needs root: it creates a system account for each student and runs "
                       "each student's server as that account (run: sudo make hub)")


def ensure_proxy() -> Path:
    """Node >= 20 and npm, and configurable-http-proxy installed by `npm ci` (first use)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        missing = " and ".join(name for name, path in (("node", node), ("npm", npm)) if not path)
        raise HubError(f"JupyterHub's proxy needs node >= {NODE_MAJOR} and npm (missing: "
                       f"{missing}); install them, e.g. from nodesource or your distribution")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    match = re.match(r"v(\d+)\.", version)
    if not match or int(match.group(1)) < NODE_MAJOR:
        raise HubError(f"JupyterHub's proxy (configurable-http-proxy) needs node >= {NODE_MAJOR}, "
                       f"found {version or 'no version'}")
    wanted = json.loads((HUB / "package.json").read_text())["dependencies"][
        "configurable-http-proxy"]
    installed = HUB / "node_modules" / "configurable-http-proxy" / "package.json"
    if PROXY.exists() and installed.exists() and json.loads(installed.read_text())[
            "version"] == wanted:
        return PROXY
    print(f"Installing configurable-http-proxy {wanted} into hub/node_modules (npm ci) ...",
          flush=True)
    try:
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                              cwd=HUB, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise HubError("npm ci in hub/ took over 10 minutes (npm registry unreachable?)") from None
    if done.returncode != 0 or not PROXY.exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise HubError(f"npm ci in hub/ failed ({last}): JupyterHub's proxy cannot be installed")
    return PROXY


def check_students(names: list[str], where: str) -> None:
    """Each name must be a valid account name and not a system account (root, daemon, ...)."""
    bad = [name for name in names if not re.fullmatch(NAME_PATTERN, name)]
    if bad:
        raise HubError(f"{where}: not a valid user name: {', '.join(bad)} (lower-case letters, "
                       "digits, - and _, starting with a letter, at most 32)")
    system = []
    for name in names:
        try:
            if pwd.getpwnam(name).pw_uid < first_regular_uid():
                system.append(name)
        except KeyError:
            pass
    if system:
        raise HubError(f"{where}: {', '.join(system)}: system account(s), not students")


def as_nobody(command: list[str]) -> subprocess.CompletedProcess:
    """Run a command as the account nobody, which has no more rights than a new student."""
    nobody = pwd.getpwnam("nobody")
    try:
        return subprocess.run(command, user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[],
                              cwd="/", env={"PATH": "/usr/bin:/bin", "HOME": "/"},
                              capture_output=True, text=True, timeout=120)
    except OSError as error:  # the program itself cannot be run
        return subprocess.CompletedProcess(command, 126, "", str(error))


def students_python() -> Path:
    """A Python that the students' accounts can run, with this checkout's packages.

    The .venv's own where they can. Where they cannot (its interpreter lies in a folder only
    root may enter: pyenv's under /root, say), a twin of the .venv in hub/python/: the same
    lib/, share/ and etc/ (symbolic links), on another interpreter of the same minor version
    that every account can run (/usr/local/bin or /usr/bin); extension modules keep their ABI
    across a minor version's releases.
    """
    if sys.prefix == sys.base_prefix:
        raise HubError("run hub/launch.py with the project's .venv/bin/python (make hub does)")
    venv = Path(sys.prefix)
    own = venv / "bin" / "python"
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return own  # nobody to try it as
    if as_nobody([str(own), "-c", "pass"]).returncode == 0:
        return own
    minor = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for base in (Path("/usr/local/bin") / minor, Path("/usr/bin") / minor):
        if not base.exists() or as_nobody([str(base), "-c", "pass"]).returncode != 0:
            continue
        version = subprocess.run([str(base), "-c", VERSION],
                                 capture_output=True, text=True).stdout.strip()
        twin = HUB / "python"
        config = (f"home = {base.parent}\ninclude-system-site-packages = false\n"
                  f"version = {version}\n")
        links = {name: venv / name for name in ("lib", "lib64", "include", "share", "etc")
                 if (venv / name).exists()}
        if not ((twin / "pyvenv.cfg").exists() and (twin / "pyvenv.cfg").read_text() == config
                and all((twin / name).resolve() == target.resolve()
                        for name, target in links.items())):
            shutil.rmtree(twin, ignore_errors=True)
            (twin / "bin").mkdir(parents=True)
            (twin / "bin" / "python").symlink_to(base)
            for name, target in links.items():
                (twin / name).symlink_to(target)
            (twin / "pyvenv.cfg").write_text(config)
        return twin / "bin" / "python"
    raise HubError(f"the students' accounts cannot run this checkout's Python ({own.resolve()}) "
                   f"and there is no {minor} that they can: install one (Debian: apt-get install "
                   f"{minor}) or build .venv from a Python outside root's home")


def check_readable_by_students(python: Path) -> None:
    """Check that the students' accounts can run python on this checkout and read it."""
    probe = ("import importlib.util, dpviz, jupyterhub; "  # found, not imported: seconds
             "assert all(map(importlib.util.find_spec, ('jupyterlab', 'jupyter_server', "
             "'ipykernel', 'jupyterhub_idle_culler'))); "
             f"open({str(workbook_source() / '00_start_here.ipynb')!r}).close(); "
             f"open({str(HUB / 'singleuser.py')!r}).close()")
    done = as_nobody([str(python), "-c", probe])
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise HubError(f"the students' accounts cannot use this checkout ({last}): put it where "
                       f"every account can read it (e.g. /opt/dpviz; {ROOT} is not)")


def check_data() -> None:
    """The UCI files, fetched now (as root) if missing, so that the students' kernels find them."""
    from dpviz.data.uci import ensure_files
    from dpviz.errors import DataUnavailableError

    try:
        ensure_files()
    except DataUnavailableError as error:
        first = str(error).splitlines()[0]
        print(f"Warning: the data sets are missing ({first}); the notebooks will say so.")


def prepare() -> dict[str, str]:
    """Every check, the proxy's install and the state folder; the hub's environment."""
    check_root()
    ensure_proxy()
    students = Path(setting("HUB_STUDENTS", str(HUB / "students.txt")))
    admin = setting("HUB_ADMIN", "instructor").strip().lower()
    check_students(class_list(students), str(students))
    check_students([admin] if admin else [], "HUB_ADMIN")
    python = students_python()
    check_readable_by_students(python)
    check_data()
    tls = [setting("HUB_SSL_CERT", ""), setting("HUB_SSL_KEY", "")]
    if any(tls) and not all(map(os.path.isfile, tls)):
        raise HubError("HTTPS needs both HUB_SSL_CERT and HUB_SSL_KEY, each an existing file")
    state = Path(setting("HUB_STATE", str(HUB / "state"))).resolve()
    state.mkdir(mode=0o700, parents=True, exist_ok=True)
    state.chmod(0o700)  # the database, the cookie secret and the password hashes
    # jupyter_events warns about JupyterHub 5.5's own event schemas at every start
    warnings = ",".join(filter(None, (os.environ.get("PYTHONWARNINGS"),
                                      "ignore:The `version` property of an event schema")))
    return {**os.environ, "HUB_STATE": str(state), "HUB_STUDENTS": str(students),
            "HUB_ADMIN": admin, "HUB_PYTHON": str(python), "PYTHONWARNINGS": warnings,
            # the proxy's token, known here too: wait_until_up asks the proxy for its routes
            "CONFIGPROXY_AUTH_TOKEN": os.environ.get("CONFIGPROXY_AUTH_TOKEN")
            or secrets.token_hex(32)}


def banner(env: dict[str, str]) -> str:
    """What to open, and how to add students."""
    ip, port = env.get("HUB_IP", "127.0.0.1"), env.get("HUB_PORT", "8000")
    scheme = "https" if env.get("HUB_SSL_CERT") else "http"
    if ip in ("0.0.0.0", "", "::"):
        url = f"{scheme}://{socket.gethostname()}:{port}/ (or this machine's address)"
        base = f"{scheme}://127.0.0.1:{port}"
    else:
        url = base = f"{scheme}://{ip}:{port}"
        url += "/"
    students = Path(env["HUB_STUDENTS"])
    names = class_list(students)
    admin = env["HUB_ADMIN"]
    source = workbook_source().relative_to(ROOT)
    lines = [
        f"JupyterHub serves dpviz at {url}",
        f"Each student lands in 00_start_here of their own copy of {source}/ "
        f"(in ~/{WORKBOOK}); a server idle for {env.get('HUB_IDLE_TIMEOUT', '3600')} s stops.",
        f"Students: {len(names)} in {students} (one user name a line); each sets a password "
        "at first login.",
    ]
    if admin:
        lines.append(f'Add students there (then restart), or now on {base}/hub/admin as "{admin}" '
                     "(log in first: the first login sets its password).")
    else:
        lines.append("Add students there and restart (HUB_ADMIN is empty: no admin page).")
    lines.append("Stop: Ctrl-C (every student's server stops; their files stay).")
    return "\n".join(lines)


def wait_until_up(hub: subprocess.Popen, env: dict[str, str], timeout: float = 120) -> bool:
    """Whether the proxy routes to the hub before the hub exits or the time runs out.

    Asked of the proxy's API (with its token), not of the public URL, whose 404 before the
    route exists the proxy would log as an error.
    """
    url = f"http://127.0.0.1:{env.get('HUB_PROXY_API_PORT', '8001')}/api/routes"
    ask = urllib.request.Request(url, headers={
        "Authorization": f"token {env['CONFIGPROXY_AUTH_TOKEN']}"})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and hub.poll() is None:
        try:
            with urllib.request.urlopen(ask, timeout=5) as answer:
                if "/" in json.load(answer):
                    return True
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
    return False


def main(argv: list[str]) -> int:
    """Check, install, start the hub and wait for it; Ctrl-C (or SIGTERM) stops it."""
    try:
        env = prepare()
    except HubError as why:
        print(f"make hub: {why}", file=sys.stderr)
        return UNAVAILABLE
    if "--prepare" in argv:
        return 0
    command = [str(Path(sys.executable).parent / "jupyterhub"), "-f",
               str(HUB / "jupyterhub_config.py"),
               f"--log-level={env.get('HUB_LOG_LEVEL', 'WARN')}"]
    # Ctrl-C in a terminal reaches the hub itself (same process group); a SIGTERM to this
    # process is passed on. Either way the hub stops every server and the proxy, then exits.
    hub = subprocess.Popen(command, cwd=env["HUB_STATE"], env=env)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # after the start: the hub must not inherit it
    signal.signal(signal.SIGTERM, lambda *_: hub.terminate())
    if wait_until_up(hub, env):
        print(banner(env), flush=True)
    elif hub.poll() is None:
        print("make hub: JupyterHub has not answered within 2 minutes; see its log above",
              file=sys.stderr)
    return hub.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
