"""`make hub` (issue 44): JupyterHub on this machine, one system account per student.

The smoke test starts the hub as `make hub` does (hub/launch.py) on 127.0.0.1, on free ports,
with a throwaway state folder and a class list of two new accounts; logs each student in
through the login form (the first login sets the password; another password is then refused,
and so is a name off the class list), takes a token through the REST API, starts both servers,
follows the browser's path from /hub/ to the landing page (notebook 00 of the student's own
copy), and runs every code cell of that copy of notebook 00 in each server's kernel (over the
kernel's websocket), both at once. Then, in each kernel: the student is who they should be,
their home is 0700, dpviz is this checkout's, the kernel talks to its server over Unix
sockets, and the other student's home and notebook cannot be read; each student's token
cannot reach the other's server; and each student's TCP ports are their server's and their
kernel's subprocess-output inlet only. The culler runs, as nobody. At the end the hub is
stopped and nothing it started may remain (the proxy, the servers, the kernels, the culler);
the two accounts and their homes are deleted, also when a check failed.

Needs root (the hub creates accounts) and node >= 20 with npm (the proxy; installed into
hub/node_modules by `npm ci` on first use); without them the test is skipped and `make test`
says why in one line at the end of its summary (tests/conftest.py). About 40 s on 2 cores
under a load of 10-13 (11 s of CPU), mostly the two servers starting.
The other tests here check the files that need no root: the class list, the copy of the
workbook, and the Zero-to-JupyterHub configuration and image (hub/z2jh, binder/).
"""

from __future__ import annotations

import contextlib
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
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HUB = ROOT / "hub"
LAUNCH = HUB / "launch.py"
UNAVAILABLE = 3  # hub/launch.py's exit code when something it needs is missing

sys.path.insert(0, str(HUB))
import launch  # noqa: E402
import singleuser  # noqa: E402

#: printed by every kernel once the notebook has run: who and where it is, what it can read
PROBE = """
import json, os, pwd, stat
import dpviz, ipykernel.connect

def _readable(path):
    try:
        os.listdir(path) if os.path.isdir(path) else open(path, "rb").close()
        return True
    except PermissionError:
        return False

_home = os.path.expanduser("~")
with open(ipykernel.connect.get_connection_file()) as _file:
    _connection = json.load(_file)
print(json.dumps({
    "user": pwd.getpwuid(os.getuid()).pw_name,
    "home": _home,
    "home_mode": stat.S_IMODE(os.stat(_home).st_mode),
    "cwd": os.getcwd(),
    "dpviz": dpviz.__file__,
    "transport": _connection["transport"],
    "pipe_port": get_ipython().kernel.iopub_thread._pipe_port,
    "omp": os.environ.get("OMP_NUM_THREADS"),
    "cache": os.environ.get("DPVIZ_CACHE"),
    "other_home": _readable(OTHER_HOME),
    "other_notebook": _readable(OTHER_NOTEBOOK),
}))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(pid: int) -> dict[int, str]:
    """Every process below pid: {pid: its start time} (the start time tells a reused pid)."""
    children: dict[int, list[int]] = {}
    starts = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        starts[int(entry.name)] = fields[19]
    found, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = starts[child]
            todo.append(child)
    return found


def _alive(processes: dict[int, str]) -> dict[int, str]:
    """Those of processes still running (same pid, same start time), with their command."""
    alive = {}
    for pid, start in processes.items():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2:].split()[19] == start:
            alive[pid] = command.strip()
    return alive


def _processes_of(uids: set[int]) -> dict[int, str]:
    """Running processes owned by any of uids: {pid: start time}."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid in uids:
                    stat = (entry / "stat").read_text()
                    found[int(entry.name)] = stat[stat.rindex(")") + 2:].split()[19]
            except OSError:
                continue
    return found


def _listening_ports(uid: int) -> dict[int, str]:
    """The TCP ports that uid's processes listen on (IPv4 and IPv6): {port: the command}."""
    sockets = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[7]) == uid:  # 0A: LISTEN
                sockets[f"socket:[{fields[9]}]"] = int(fields[1].rsplit(":", 1)[1], 16)
    ports = dict.fromkeys(sockets.values(), "?")
    for pid in _processes_of({uid}):
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # the process is gone
            continue
        holding = set()
        for fd in fds:  # one closed while it is read (a busy server) does not hide the others
            with contextlib.suppress(OSError):
                holding.add(os.readlink(fd))
        for name in holding & sockets.keys():
            ports[sockets[name]] = command.strip()
    return ports


def _execute(ws, code: str, timeout: float = 240) -> tuple[str, list[str]]:
    """Run code in the kernel behind the websocket ws: its stdout and its errors."""
    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "smoke-test",
                   "session": uuid.uuid4().hex, "version": "5.3",
                   "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
        "parent_header": {}, "metadata": {}, "buffers": [], "channel": "shell",
        "content": {"code": code, "silent": False, "store_history": True,
                    "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
    }))
    out, errors = [], []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ws.settimeout(max(1.0, deadline - time.monotonic()))
        message = json.loads(ws.recv())
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind, content = message["msg_type"], message["content"]
        if kind == "stream" and content["name"] == "stdout":
            out.append(content["text"])
        elif kind == "error":
            errors.append(f"{content['ename']}: {content['evalue']}")
        elif (kind == "status" and message.get("channel") == "iopub"
              and content["execution_state"] == "idle"):
            return "".join(out), errors
    raise TimeoutError(f"no reply within {timeout} s to {code[:60]!r}")


class Student:
    """One student's session with the hub: a browser's cookies, then a token."""

    def __init__(self, name: str, base: str) -> None:
        import requests

        self.name, self.base = name, base
        self.password = secrets.token_hex(8)
        self.browser = requests.Session()
        self.token = ""
        self.server = f"{base}/user/{name}"

    def log_in(self, password: str | None = None) -> int:
        """The login form, as a browser posts it; the HTTP status (302: logged in)."""
        page = self.browser.get(f"{self.base}/hub/login", timeout=60)
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text).group(1)
        answer = self.browser.post(
            f"{self.base}/hub/login?next=", allow_redirects=False, timeout=60,
            data={"username": self.name, "password": password or self.password, "_xsrf": xsrf})
        return answer.status_code

    def api(self, method: str, path: str, **kwargs):
        """A request with the student's token."""
        import requests

        return requests.request(method, path if "://" in path else self.base + path,
                                headers={"Authorization": f"token {self.token}"}, timeout=60,
                                **kwargs)

    def take_token(self) -> None:
        """A token through the REST API, authenticated by the login cookie."""
        xsrf = self.browser.cookies.get("_xsrf")
        answer = self.browser.post(f"{self.base}/hub/api/users/{self.name}/tokens",
                                   json={"note": "smoke test", "expires_in": 900},
                                   headers={"X-XSRFToken": xsrf}, timeout=60)
        assert answer.status_code == 201, answer.text
        self.token = answer.json()["token"]

    def start_server(self, timeout: float = 150) -> None:
        """Ask for the server, then wait until the hub says it is ready."""
        answer = self.api("POST", f"/hub/api/users/{self.name}/server")
        assert answer.status_code in (201, 202), answer.text
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            model = self.api("GET", f"/hub/api/users/{self.name}").json()
            if model["servers"].get("", {}).get("ready"):
                return
            time.sleep(0.5)
        raise TimeoutError(f"{self.name}'s server was not ready within {timeout} s")

    def landing_url(self) -> str:
        """Where a browser that opens the hub lands (through the server's OAuth)."""
        return self.browser.get(f"{self.base}/hub/", timeout=60).url

    def run_notebook(self, path: str) -> tuple[list[str], object]:
        """Open a kernel on the student's copy of path and run its code cells in order."""
        import websocket

        notebook = self.api("GET", f"{self.server}/api/contents/{path}").json()["content"]
        session = self.api("POST", f"{self.server}/api/sessions",
                           json={"path": path, "type": "notebook",
                                 "kernel": {"name": "python3"}}).json()
        ws = websocket.create_connection(
            f"ws{self.base[4:]}/user/{self.name}/api/kernels/{session['kernel']['id']}/channels",
            header=[f"Authorization: token {self.token}"], timeout=60)
        errors = []
        for cell in notebook["cells"]:
            if cell["cell_type"] == "code" and not errors:
                _, errors = _execute(ws, cell["source"])
        return errors, ws


def _run_student(student: Student, other: str, barrier: threading.Barrier) -> dict:
    """Log in, start the server, land, run notebook 00, then (once both have) probe."""
    result = {"first_login": student.log_in()}
    student.take_token()
    student.start_server()
    result["landing"] = student.landing_url()
    result["errors"], ws = student.run_notebook("00_start_here.ipynb")
    try:
        barrier.wait(timeout=300)  # the other student's copy exists from here on
        home = pwd.getpwnam(other).pw_dir
        notebook = f"{home}/{launch.WORKBOOK}/00_start_here.ipynb"
        out, probe_errors = _execute(ws, PROBE.replace("OTHER_HOME", repr(home)).replace(
            "OTHER_NOTEBOOK", repr(notebook)))
        assert not probe_errors, probe_errors
        result["probe"] = json.loads(out.strip().splitlines()[-1])
    finally:
        ws.close()
    result["other_server"] = student.api(
        "GET", f"{student.base}/user/{other}/api/contents/00_start_here.ipynb",
        allow_redirects=False).status_code
    result["ports"] = _listening_ports(pwd.getpwnam(student.name).pw_uid)
    return result


@pytest.fixture
def hub_state():
    """A throwaway folder for the hub's state, its class list and its log."""
    if os.geteuid() != 0:
        pytest.skip("make hub needs root (it creates an account per student); run as root")
    folder = Path(tempfile.mkdtemp(prefix="dpviz-hub-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_two_students_each_run_notebook_00_and_cannot_read_each_other(hub_state):
    state = hub_state
    names = [f"dpvizsmoke{os.getpid()}{x}" for x in "ab"]
    for name in names:  # never touch an account this test did not create
        with pytest.raises(KeyError):
            pwd.getpwnam(name)
    students_file = state / "students.txt"
    students_file.write_text("# the smoke test's class\n" + "\n".join(names) + "\n")
    port = _free_port()
    env = {**os.environ, "HUB_STATE": str(state / "state"), "HUB_STUDENTS": str(students_file),
           "HUB_ADMIN": "", "HUB_IP": "127.0.0.1", "HUB_PORT": str(port),
           "HUB_API_PORT": str(_free_port()), "HUB_PROXY_API_PORT": str(_free_port()),
           "HUB_LOG_LEVEL": "INFO"}
    log_path = state / "hub.log"
    started = time.monotonic()
    with log_path.open("w") as log:
        hub = subprocess.Popen([sys.executable, str(LAUNCH)], env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    started_by_hub: dict[int, str] = {}
    uids: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while "JupyterHub serves dpviz at" not in log_path.read_text():
            if hub.poll() == UNAVAILABLE:  # no node, npm or proxy here: one line says which
                pytest.skip(log_path.read_text().strip().splitlines()[-1].removeprefix(
                    "make hub: "))
            assert hub.poll() is None and time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.3)
        banner = log_path.read_text()
        assert f"JupyterHub serves dpviz at http://127.0.0.1:{port}/" in banner
        assert "Students: 2 in" in banner
        uids = {pwd.getpwnam(name).pw_uid for name in names}  # created at the hub's start
        base = f"http://127.0.0.1:{port}"
        students = [Student(name, base) for name in names]
        barrier = threading.Barrier(2)
        with ThreadPoolExecutor(2) as pool:
            futures = [pool.submit(_run_student, students[i], names[1 - i], barrier)
                       for i in range(2)]
            while not all(future.done() for future in futures):
                started_by_hub.update(_descendants(hub.pid))
                time.sleep(0.5)
            try:
                results = [future.result() for future in futures]
            except Exception as error:  # the hub's log says why (it is deleted with the state)
                pytest.fail(f"{error!r}\nthe hub's log (end):\n{log_path.read_text()[-6000:]}")
        started_by_hub.update(_descendants(hub.pid))
        # the first login claimed the password: another one is now refused (a new browser)
        assert Student(names[0], base).log_in(password=students[1].password) == 403
        # a name off the class list cannot claim a password, nor get an account
        stranger = f"dpvizsmoke{os.getpid()}x"
        assert Student(stranger, base).log_in() == 403
        with pytest.raises(KeyError):
            pwd.getpwnam(stranger)
        culler = {pid: command for pid, command in _alive(started_by_hub).items()
                  if "jupyterhub_idle_culler" in command}
        assert len(culler) == 1 and "--timeout=3600" in next(iter(culler.values())), culler
        assert Path(f"/proc/{next(iter(culler))}").stat().st_uid == pwd.getpwnam("nobody").pw_uid
        for name, other, result in zip(names, reversed(names), results, strict=True):
            home = pwd.getpwnam(name).pw_dir
            assert result["first_login"] == 302, result
            assert result["landing"] == f"{base}/user/{name}/lab/tree/00_start_here.ipynb"
            assert result["errors"] == [], (name, result["errors"])
            probe = result["probe"]
            assert probe["user"] == name and probe["home"] == home
            assert probe["home_mode"] == 0o700
            assert probe["cwd"] == f"{home}/{launch.WORKBOOK}"
            # the students' copy's library when the hub serves it (make student), else ours
            library = launch.workbook_library() or ROOT
            assert probe["dpviz"] == str(library / "dpviz" / "__init__.py")
            assert probe["transport"] == "ipc"  # no kernel port on TCP for others to read
            assert probe["omp"] == "1" and probe["cache"] == f"{home}/.dpviz_cache"
            assert probe["other_home"] is False and probe["other_notebook"] is False, probe
            assert result["other_server"] in (403, 404), (name, other, result["other_server"])
            # TCP: the server's port, and the kernel's inlet for its forked subprocesses' output
            # (ipykernel's IOPub pipe: a PULL socket, which can only receive, and drops what
            # does not start with the kernel's 128-bit secret); the kernel's channels are not
            server = [port for port, command in result["ports"].items() if "singleuser" in command]
            assert len(server) == 1, result["ports"]
            assert set(result["ports"]) == {*server, probe["pipe_port"]}, result["ports"]
    finally:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait(timeout=30)
        deadline = time.monotonic() + 15  # the kernels follow their servers within seconds
        while (leftovers := _alive({**started_by_hub, **_processes_of(uids)})) and (
                time.monotonic() < deadline):
            time.sleep(0.3)
        for pid in leftovers:  # ours: started by the hub this test started
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for name in names:
            try:
                pwd.getpwnam(name)
            except KeyError:
                continue
            subprocess.run(["userdel", "--remove", name], capture_output=True, timeout=60)
        seconds = time.monotonic() - started
    assert not leftovers, f"still running after the hub stopped: {leftovers}"
    for name in names:
        with pytest.raises(KeyError):
            pwd.getpwnam(name)
    print(f"hub smoke test: {seconds:.0f} s from the launch to the accounts' removal")


def test_make_hub_runs_the_launcher():
    printed = subprocess.run(["make", "-s", "-n", "hub", "HUB_IP=0.0.0.0"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    assert printed.strip().splitlines()[-1] == (
        "HUB_IP=0.0.0.0 HUB_PORT=8000 .venv/bin/python hub/launch.py")


def test_the_class_list_and_its_checks(tmp_path):
    listed = tmp_path / "students.txt"
    listed.write_text("# lab 3\nAna\n  bo_2  # a comment\n\ncy-3\n")
    assert launch.class_list(listed) == ["ana", "bo_2", "cy-3"]
    assert launch.class_list(tmp_path / "missing.txt") == []
    with pytest.raises(launch.HubError, match="not a valid user name: 3ana, a b"):
        launch.check_students(["3ana", "a b", "ok"], "students.txt")
    with pytest.raises(launch.HubError, match="root: system account"):
        launch.check_students(["root"], "students.txt")


def test_each_student_gets_the_missing_files_and_keeps_their_own(tmp_path):
    source = tmp_path / "source"
    (source / "sub").mkdir(parents=True)
    (source / ".ipynb_checkpoints").mkdir()
    for name, text in {"00_start_here.ipynb": "new", "01.ipynb": "new", "sub/a.csv": "new",
                       "nbval_sanitize.cfg": "tests", ".ipynb_checkpoints/x": "no"}.items():
        (source / name).write_text(text)
    home = tmp_path / "home"
    (home / "copy").mkdir(parents=True)
    (home / "copy" / "00_start_here.ipynb").write_text("the student's answers")
    copied = singleuser.copy_missing(source, home / "copy")
    assert sorted(map(str, copied)) == ["01.ipynb", "sub/a.csv"]
    assert (home / "copy" / "00_start_here.ipynb").read_text() == "the student's answers"
    assert not (home / "copy" / "nbval_sanitize.cfg").exists()
    assert not (home / "copy" / ".ipynb_checkpoints").exists()
    assert singleuser.copy_missing(source, home / "copy") == []
    assert launch.workbook_source() in (ROOT / "notebooks", ROOT / "build" / "student",
                                        ROOT / "build" / "student" / "notebooks")


def test_the_proxy_pin_and_its_lock_agree():
    package = json.loads((HUB / "package.json").read_text())
    lock = json.loads((HUB / "package-lock.json").read_text())
    pinned = package["dependencies"]["configurable-http-proxy"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned)  # exact, not a range
    assert lock["packages"]["node_modules/configurable-http-proxy"]["version"] == pinned
    assert lock["packages"][""]["dependencies"] == package["dependencies"]


def test_the_zero_to_jupyterhub_files_agree_with_make_hub():
    import yaml

    values = yaml.safe_load((HUB / "z2jh" / "config.yaml").read_text())
    local = (HUB / "jupyterhub_config.py").read_text()
    single = values["singleuser"]
    # the same start, landing page and copy of the workbook as on one machine
    assert single["cmd"] == ["python", "/srv/dpviz/hub/singleuser.py"]
    assert f'c.Spawner.default_url = "{single["defaultUrl"]}"' in local
    assert values["hub"]["config"]["KubeSpawner"]["notebook_dir"] == f"~/{launch.WORKBOOK}"
    assert values["hub"]["config"]["JupyterHub"]["authenticator_class"] == "firstuseauthenticator"
    assert values["hub"]["config"]["FirstUseAuthenticator"]["create_users"] is False
    assert values["cull"]["enabled"] is True and values["cull"]["timeout"] == 3600
    assert "HUB_IDLE_TIMEOUT', '3600'" in local
    assert single["storage"]["homeMountPath"] == "/home/jovyan"
    # the sizing is the guide's: 1 / (students per core) of a core and GB per student
    guide = (ROOT / "docs" / "instructor.md").read_text()
    per_core = int(re.search(r"\| students per core \| \*\*(\d+)\*\*", guide)[1])
    assert single["cpu"]["guarantee"] == pytest.approx(1 / per_core, abs=0.005)
    assert "PLACEHOLDER" not in (HUB / "z2jh" / "config.yaml").read_text() + guide
    # the image: the workbook's pins (JupyterHub 5, the chart 4.4.0's major version) and dpviz
    assert (ROOT / "binder" / "requirements.txt").read_text().splitlines()[-1] == (
        "-r ../requirements.txt")
    assert re.search(r"^jupyterhub==5\.\d+\.\d+$", (ROOT / "requirements.txt").read_text(), re.M)
    post_build = ROOT / "binder" / "postBuild"
    assert os.access(post_build, os.X_OK)
    assert "pip install --no-cache-dir --quiet --no-deps -e ." in post_build.read_text()
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == "python-3.11"
