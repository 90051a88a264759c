"""A real JupyterHub on this machine, as a course runs on one (issue 21).

One session fixture, :func:`hub`, builds it and stops it:

* **People are Unix users** (:mod:`tests.multiuser`): ``instructor``, ``alice`` and ``bob``, each logging
  in to the hub with a password of their own (an authenticator with the fixture's passwords: no PAM).
* **Students' servers** are JupyterHub's ``LocalProcessSpawner`` as the student, each in a mount namespace
  (bubblewrap, unprivileged: the container image of a real hub) that holds the system, the *student
  image*, the student's home and the exchange, and nothing else: not this repository, wherever it was
  cloned, nor the instructor's files. The image is an installation of Python with the
  third-party packages (JupyterLab, nbgrader's extensions, numpy, ...) and the student kit that
  ``autograder kit`` builds, installed as the README says (``pip install --no-index kit.whl``).
* **The course is a hub service** named after the course id, as nbgrader's documentation for several
  classes on one hub lays it out: ``jupyterhub-singleuser`` run by the hub as the course's account (the
  instructor), from the course directory, with formgrader; the hub group ``formgrade-<course>`` may use
  it, ``nbgrader-<course>`` holds the students.
* **The instructor is not root**: the course directory, and an environment with this package installed,
  are the instructor's (mode 0700); the instructor's commands run as that user (:meth:`Hub.instructor`).
* **The exchange** is a shared directory, mode 1777, as nbgrader's documentation asks.
* **Each student their own numbers** (issue 22): the course has a ``variants:`` section and a roster. Its
  secret is a file of the instructor's outside the course directory (mode 0600), as an instructor keeps it;
  the instructor builds the student kit with the roster's numbers (``kit_numbers``) before the image gets
  it. 01's per-student item is the order its concept questions' options are shown in.

Everything lives in a fresh temporary directory that every user can traverse (a venv in a root-owned
0700 home is unreadable to other users, and CI clones into an unknown folder). The student image and the
instructor's environment are each a copy of this Python (hard links: a second or two) with this virtual
environment's packages hard-linked in; only third-party packages go into the student image.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import re
import resource
import secrets
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, LAB_SETTINGS, browser_skip_reason
from tests.browser.nbtools import REPO
from tests.multiuser import as_user, ensure_user

INSTRUCTOR = "instructor"
STUDENTS = ("alice", "bob")
ASSIGNMENT = "01_scores_softmax"
CONCEPTS = f"{ASSIGNMENT}/concepts"  # 01's per-student item: the order of its concept questions' options
PROXY = Path(sys.prefix) / "hub-proxy" / "node_modules" / ".bin" / "configurable-http-proxy"
START_TIMEOUT = 120.0
MINOR = f"{sys.version_info[0]}.{sys.version_info[1]}"
#: This project's own install in the virtual environment (an editable install): never in an image.
PROJECT = re.compile(r"^(__editable__.*attention_course.*|attention_course-.*\.dist-info)$")


def _proxy() -> Path | None:
    if PROXY.exists():
        return PROXY
    found = shutil.which("configurable-http-proxy")
    return Path(found) if found else None


def hub_skip_reason() -> str | None:
    """Why a hub cannot be built here, or None (each reason names what is missing)."""
    if os.geteuid() != 0:
        return "the hub's people are Unix users made with useradd, and its spawner runs as each of them: needs root"
    if shutil.which("useradd") is None:
        return "no useradd on this machine (Debian's passwd package): the hub's people are Unix users"
    reason = browser_skip_reason()
    if reason:
        return reason
    if _proxy() is None:
        return (f"no configurable-http-proxy at {PROXY}: `python3 dev.py setup` installs it with npm "
                "(install Node.js and npm first)")
    if shutil.which("node") is None:
        return "no node on PATH: configurable-http-proxy needs Node.js"
    if shutil.which("bwrap") is None:
        return "no bwrap: the students' servers and the grader need Debian's bubblewrap"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------- environments
def _link(entries: list[Path], dest: Path) -> None:
    """Hard-link ``entries`` into ``dest`` (``cp -al``; a copy where the file systems differ)."""
    dest.mkdir(parents=True, exist_ok=True)
    if not entries:
        return
    args = ["--target-directory", str(dest), *map(str, entries)]
    if subprocess.run(["cp", "-a", "-l", *args], capture_output=True).returncode != 0:
        subprocess.run(["cp", "-a", *args], check=True)


def _link_tree(src: Path, dest: Path, skip: re.Pattern | None = None) -> None:
    """Hard-link ``src``'s entries, but those whose name ``skip`` matches, into ``dest``."""
    _link([p for p in sorted(src.iterdir()) if not (skip and skip.match(p.name))], dest)


def _copy_python(dest: Path) -> None:
    """This Python at ``dest``: its interpreter, its standard library and shared library, none of its own
    site-packages. Where the interpreter finds its shared library by an absolute path into its installation
    (pyenv's RUNPATH: in root's 0700 home, unreadable to the hub's users), the copy finds it beside itself
    ($ORIGIN/../lib): the path's bytes are replaced in a new file, padded with NULs to the same length."""
    base = Path(sys.base_prefix)
    stdlib = dest / "lib" / f"python{MINOR}"
    _link_tree(base / "lib" / f"python{MINOR}", stdlib, re.compile(r"^(site|dist)-packages$"))
    (stdlib / "site-packages").mkdir()
    _link(sorted((base / "lib").glob(f"libpython{MINOR}*")), dest / "lib")
    binary = Path(sys._base_executable).resolve().read_bytes()
    absolute = str(base / "lib").encode() + b"\0"
    relative = b"$ORIGIN/../lib"
    if absolute in binary and len(relative) < len(absolute):
        binary = binary.replace(absolute, relative.ljust(len(absolute), b"\0"))
    (dest / "bin").mkdir()
    python = dest / "bin" / f"python{MINOR}"
    python.write_bytes(binary)
    python.chmod(0o755)
    for alias in ("python", f"python{sys.version_info[0]}"):
        (dest / "bin" / alias).symlink_to(python.name)


def _console_scripts(env: Path) -> None:
    """Write ``env/bin``'s console scripts from the entry points of what is installed in ``env``."""
    from importlib.metadata import distributions

    for dist in distributions(path=[str(_purelib(env))]):
        for ep in dist.entry_points.select(group="console_scripts"):
            script = env / "bin" / ep.name
            if script.exists():
                continue
            head = ep.attr.split(".")[0]
            script.write_text(f"#!{env}/bin/python{MINOR}\nimport sys\nfrom {ep.module} import {head}\n"
                              f"sys.exit({ep.attr}())\n")
            script.chmod(0o755)


def _purelib(env: Path) -> Path:
    return env / "lib" / f"python{MINOR}" / "site-packages"


def make_env(env: Path, *, project: bool) -> Path:
    """An installation of this Python at ``env`` (:func:`_copy_python`) holding this venv's third-party packages
    and their Jupyter data and config (nbgrader's extensions), and this project only where ``project``.

    Not a virtual environment of this Python: that Python may be unreadable to other users (pyenv's, under
    root's home). Not the system's Python either: Debian 12's 3.11.2 has the regular-expression bug with
    possessive quantifiers that breaks soupsieve (nbconvert's HTML export, so formgrader's pages)."""
    _copy_python(env)
    site = Path(sysconfig.get_paths()["purelib"])
    _link_tree(site, _purelib(env), PROJECT)
    for sub in ("share", "etc"):
        if (Path(sys.prefix) / sub).is_dir():
            _link_tree(Path(sys.prefix) / sub, env / sub)
    if project:
        for package in ("autograder", "attention_ref"):
            shutil.copytree(REPO / package, _purelib(env) / package,
                            ignore=shutil.ignore_patterns("__pycache__"))
        for info in site.glob("attention_course-*.dist-info"):
            shutil.copytree(info, _purelib(env) / info.name, ignore=shutil.ignore_patterns("direct_url.json"))
        # compiled now: the instructor cannot write beside these files, and would compile them in every process
        subprocess.run([str(env / "bin" / "python"), "-m", "compileall", "-q", str(_purelib(env) / "autograder"),
                        str(_purelib(env) / "attention_ref")], check=True, stdout=subprocess.DEVNULL)
    else:  # nbgrader's installation guide: students get the Assignments tab and Validate, nothing of the instructor's
        config = env / "etc" / "jupyter" / "jupyter_server_config.d" / "nbgrader.json"
        extensions = json.loads(config.read_text())
        for name in ("formgrader", "course_list"):
            extensions["ServerApp"]["jpserver_extensions"][f"nbgrader.server_extensions.{name}"] = False
        config.unlink()  # a hard link to this venv's file: replaced, never written through
        config.write_text(json.dumps(extensions, indent=2))
        page = env / "etc" / "jupyter" / "labconfig" / "page_config.json"  # `jupyter labextension disable`'s file
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(json.dumps({"disabledExtensions": {
            f"@jupyter/nbgrader:{name}": True for name in ("formgrader", "course-list", "create-assignment")}}))
    _console_scripts(env)
    return env


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


# ---------------------------------------------------------------------------------------- the hub
HUB_CONFIG = '''\
"""JupyterHub configuration written by tests/hub/conftest.py; its values are in settings.json beside it."""
import json
import secrets
from pathlib import Path

from jupyterhub.auth import Authenticator

S = json.loads((Path(__file__).parent / "settings.json").read_text())
c = get_config()  # noqa: F821


class Passwords(Authenticator):
    """Each account's password, set by the test fixture (no PAM)."""

    async def authenticate(self, handler, data):
        expected = S["passwords"].get(data.get("username", ""))
        if expected and secrets.compare_digest(expected, data.get("password", "")):
            return data["username"]
        return None


c.JupyterHub.authenticator_class = Passwords
c.Authenticator.allowed_users = set(S["passwords"])
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = S["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = S["hub_port"]
c.ConfigurableHTTPProxy.command = [S["proxy"]]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%d" % S["proxy_api_port"]
c.ConfigurableHTTPProxy.auth_token = S["proxy_token"]
c.JupyterHub.db_url = "sqlite:///" + S["db"]
c.JupyterHub.cookie_secret = bytes.fromhex(S["cookie_secret"])
c.JupyterHub.cleanup_servers = True
c.JupyterHub.tornado_settings = {"slow_spawn_timeout": 0}  # a spawn asked for through the API answers at once


def student_server(spawner):
    """A student's server: JupyterLab from the student image, as the student, in its mount namespace."""
    name = spawner.user.name
    if name not in S["homes"]:
        raise RuntimeError(f"{name} has no server of their own: the course service is the instructor's")
    home = S["homes"][name]
    spawner.notebook_dir = home
    spawner.environment = {k: v.format(home=home) for k, v in S["student_environment"].items()}
    spawner.cmd = [*S["student_sandbox"], "--bind", home, home, "--setenv", "HOME", home, "--chdir", home,
                   "--", S["student_singleuser"]]


c.Spawner.pre_spawn_hook = student_server
c.Spawner.default_url = "/lab"
c.Spawner.args = S["lab_args"]
c.Spawner.env_keep = ["LANG", "LC_ALL"]  # nothing of the hub's own environment (its venv) reaches a student
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120

course = S["course_id"]
c.JupyterHub.services = [
    {
        "name": course,  # nbgrader: the service's name is the course id
        "url": "http://127.0.0.1:%d" % S["service_port"],
        "command": [S["instructor_singleuser"], *S["lab_args"]],
        "user": S["instructor"],
        "cwd": S["course"],
        "environment": S["instructor_environment"],
        "oauth_no_confirm": True,
    },
    {"name": "test-driver", "api_token": S["driver_token"]},
]
c.JupyterHub.load_groups = {
    "formgrade-" + course: {"users": [S["instructor"]]},
    "nbgrader-" + course: {"users": sorted(S["homes"])},
}
c.JupyterHub.load_roles = [
    {"name": "formgrade-" + course, "groups": ["formgrade-" + course],
     "scopes": ["access:services!service=" + course]},
    {"name": "test-driver", "services": ["test-driver"],
     "scopes": ["admin:users", "admin:servers", "access:servers", "tokens"]},
]
'''


@dataclass
class Hub:
    """The running hub and what the fixture made for it."""

    root: Path  # the world-traversable temporary directory everything is in
    port: int
    course_id: str
    course: Path  # the instructor's course directory
    exchange: Path
    homes: dict[str, Path]  # student -> the home their server serves
    passwords: dict[str, str]
    instructor_env: Path
    student_image: Path
    secret_file: Path  # the course secret of per-student numbers: the instructor's, outside the course directory
    driver_token: str
    log: Path
    proc: subprocess.Popen = field(repr=False)
    setup_seconds: dict[str, float] = field(default_factory=dict)
    cpu_seconds: dict[str, float] = field(default_factory=dict)  # the instructor's commands' CPU time

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def order(self, student: str):
        """``student``'s option order of 01's concept questions, derived here from the secret (as the grader does)."""
        from autograder.variants import student_items

        return student_items(self.secret_file.read_bytes().strip(), self.course_id, student, [CONCEPTS])[CONCEPTS]

    def log_tail(self, n: int = 80) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no hub log)"

    def request(self, path: str, method: str = "GET", data: dict | bytes | None = None, form: bool = False,
                timeout: float = 60):
        """``path`` (below the hub's URL) with the test driver's token; the decoded JSON answer."""
        headers = {"Authorization": f"token {self.driver_token}"}
        body = None
        if isinstance(data, bytes):
            body = data
        elif data is not None and form:
            body = urllib.parse.urlencode(data).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(f"{self.url}/{path.lstrip('/')}", data=body, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
        return json.loads(raw) if raw else None

    def start_server(self, name: str) -> None:
        """Start ``name``'s server through the hub's REST API and wait until it answers."""
        try:
            self.request(f"hub/api/users/{name}/server", method="POST")
        except urllib.error.HTTPError as exc:
            if exc.code != 400:  # 400: already running
                raise
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            user = self.request(f"hub/api/users/{name}")
            server = user.get("servers", {}).get("", {})
            if server.get("ready"):
                return
            if not user.get("pending") and not server:
                pytest.fail(f"{name}'s server did not start:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                pytest.fail(f"{name}'s server not ready in {START_TIMEOUT:.0f} s:\n{self.log_tail()}")
            time.sleep(0.3)

    def instructor(self, *argv: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
        """A command of the instructor's environment, as the instructor, in the course directory."""
        env = {"PATH": f"{self.instructor_env / 'bin'}:/usr/bin:/bin", "MPLBACKEND": "Agg",
               "PYTHONWARNINGS": "ignore"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = as_user(INSTRUCTOR, [str(self.instructor_env / "bin" / argv[0]), *argv[1:]], env=env,
                       cwd=self.course, capture_output=True, text=True, timeout=timeout)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        name = " ".join(argv[:2])
        self.cpu_seconds[name] = round(self.cpu_seconds.get(name, 0) + after.ru_utime + after.ru_stime
                                       - before.ru_utime - before.ru_stime, 1)
        if check:
            assert done.returncode == 0, (f"{argv} as {INSTRUCTOR}: {done.returncode}\n{done.stdout[-3000:]}\n"
                                          f"{done.stderr[-3000:]}")
        return done

    def execute(self, user: str, code: str, timeout: float = 60) -> dict:
        """Run ``code`` in a fresh kernel of ``user``'s server (REST and the kernel's websocket, as JupyterLab
        does); returns ``{"stdout": ..., "error": ...}``. The kernel is shut down after."""
        kernel = self.request(f"user/{user}/api/kernels", method="POST", data={"name": "python3"})
        try:
            with ThreadPoolExecutor(1) as pool:  # a loop of its own: Playwright's sync API runs one in this thread
                return pool.submit(asyncio.run, asyncio.wait_for(self._execute(user, kernel["id"], code), timeout)).result()
        finally:
            self.request(f"user/{user}/api/kernels/{kernel['id']}", method="DELETE")

    async def _execute(self, user: str, kernel_id: str, code: str) -> dict:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = f"ws://127.0.0.1:{self.port}/user/{user}/api/kernels/{kernel_id}/channels"
        ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {self.driver_token}"}))
        msg_id = uuid.uuid4().hex
        ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "test", "session": msg_id,
                       "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        out: dict = {"stdout": "", "error": None}
        try:
            while True:
                raw = await ws.read_message()
                if raw is None:
                    raise AssertionError(f"{user}'s kernel closed its channels")
                if isinstance(raw, bytes):
                    continue
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind = msg["msg_type"]
                if kind == "stream":
                    out["stdout"] += msg["content"]["text"]
                elif kind == "error":
                    out["error"] = f"{msg['content']['ename']}: {msg['content']['evalue']}"
                elif kind == "status" and msg["content"]["execution_state"] == "idle":
                    return out
        finally:
            ws.close()
            # the close handshake in this loop, which ends after it: else the socket is left open to the garbage
            # collector (a ResourceWarning, an error in this suite, at the session's end)
            with contextlib.suppress(asyncio.TimeoutError):
                while await asyncio.wait_for(ws.read_message(), 10) is not None:
                    pass


def _chown_tree(path: Path, user: str) -> None:
    pw = pwd.getpwnam(user)
    for p in [path, *path.rglob("*")]:
        os.lchown(p, pw.pw_uid, pw.pw_gid)


def right_letters(order) -> tuple[str, ...]:
    """The letters under which ``order`` (a student's :class:`~autograder.checks.items.OptionOrder` of 01) shows
    each question's right option: what that student answers."""
    from autograder.checks.concepts import questions

    return tuple("abcd"[shown.index(q.right)] for q, shown in zip(questions(ASSIGNMENT), order.order, strict=True))


def draw_secret(course_id: str) -> bytes:
    """A fresh secret as an instructor makes one (64 hex digits), drawn again (3 secrets in 64) while the lesson's,
    alice's and bob's right letters are not three different answers: alice's letters must be wrong on the lesson's
    order and bob's, where bob hands them in, for her points and his loss to say whose order grading used."""
    from autograder.checks.items import LESSON
    from autograder.variants import student_items

    while True:
        secret = secrets.token_hex(32).encode()
        letters = {right_letters(LESSON[CONCEPTS])}
        letters |= {right_letters(student_items(secret, course_id, s, [CONCEPTS])[CONCEPTS]) for s in STUDENTS}
        if len(letters) == 1 + len(STUDENTS):
            return secret


def _course(course: Path, exchange: Path, secret_file: Path) -> str:
    """The instructor's course directory: course.yml (this exchange; per-student numbers from ``secret_file``, whose
    secret it writes, and the roster), nbgrader_config.py, the solutions of the assignment in use. Returns the
    course id."""
    from autograder.variants import fingerprint

    (course / "solutions").mkdir(parents=True)
    shutil.copytree(REPO / "solutions" / ASSIGNMENT, course / "solutions" / ASSIGNMENT,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    shutil.copy2(REPO / "nbgrader_config.py", course)
    text = re.sub(r"(?m)^(exchange|variants|roster):.*\n(  .*\n)*", "", (REPO / "course.yml").read_text())
    course_id = re.search(r"(?m)^course_id:\s*(\S+)", text).group(1)
    secret = draw_secret(course_id)
    secret_file.write_bytes(secret + b"\n")
    secret_file.chmod(0o600)  # the grader refuses a secret every user of the host can read
    (course / "roster.csv").write_text("student_id\n" + "".join(f"{s}\n" for s in STUDENTS))
    (course / "course.yml").write_text(text + f"exchange:\n  root: {exchange}\n"
                                              f"variants:\n  secret_file: {secret_file}\n"
                                              f"  fingerprint: {fingerprint(secret)}\nroster: roster.csv\n")
    return course_id


def _student_home(home: Path, exchange: Path, course_id: str) -> None:
    """A student's home as their server sees it: nbgrader's settings (the README's two lines) and
    JupyterLab's (no news, every cell rendered)."""
    jupyter = home / ".jupyter"
    jupyter.mkdir(parents=True)
    (jupyter / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        f"c.CourseDirectory.course_id = {course_id!r}\n")
    for rel, value in LAB_SETTINGS.items():
        p = jupyter / "lab" / "user-settings" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(value))


STUDENT_ENVIRONMENT = {
    "JUPYTER_CONFIG_DIR": "{home}/.jupyter",
    "JUPYTER_DATA_DIR": "{home}/.local/share/jupyter",
    "JUPYTER_RUNTIME_DIR": "{home}/.local/share/jupyter/runtime",
    "JUPYTERLAB_SETTINGS_DIR": "{home}/.jupyter/lab/user-settings",
    "JUPYTERLAB_WORKSPACES_DIR": "{home}/.jupyter/lab/workspaces",
    "IPYTHONDIR": "{home}/.ipython",
    "MPLCONFIGDIR": "{home}/.config/matplotlib",
    "PYTHONWARNINGS": "ignore",
}
LAB_ARGS = ["--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]


def _hub_settings(hub: Hub, jupyter_dirs: Path) -> dict:
    """What :data:`HUB_CONFIG` reads (``settings.json``): ports, secrets, the people, their servers, the course service."""
    for d in ("config", "data", "runtime", "ipython", "mpl", "settings", "workspaces"):
        (jupyter_dirs / d).mkdir(parents=True, exist_ok=True)
    _chown_tree(jupyter_dirs, INSTRUCTOR)
    env = hub.instructor_env
    return {
        "passwords": hub.passwords, "port": hub.port, "hub_port": _free_port(),
        "proxy": str(_proxy()), "proxy_api_port": _free_port(), "proxy_token": secrets.token_hex(32),
        "db": str(hub.log.parent / "jupyterhub.sqlite"), "cookie_secret": secrets.token_hex(32),
        "homes": {s: str(h) for s, h in hub.homes.items()},
        "student_environment": {**STUDENT_ENVIRONMENT, "PATH": f"{hub.student_image}/bin:/usr/bin:/bin"},
        "student_sandbox": [shutil.which("bwrap"), "--die-with-parent", "--unshare-pid", "--unshare-ipc",
                            "--unshare-uts", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                            *_system_binds(), "--ro-bind", str(hub.student_image), str(hub.student_image),
                            "--bind", str(hub.exchange), str(hub.exchange)],
        "student_singleuser": str(hub.student_image / "bin" / "jupyterhub-singleuser"),
        "lab_args": LAB_ARGS,
        "course_id": hub.course_id, "course": str(hub.course), "service_port": _free_port(),
        "instructor": INSTRUCTOR,
        "instructor_singleuser": str(env / "bin" / "jupyterhub-singleuser"),
        "instructor_environment": {
            "PATH": f"{env}/bin:/usr/bin:/bin", "PYTHONWARNINGS": "ignore",
            "JUPYTER_CONFIG_DIR": str(jupyter_dirs / "config"), "JUPYTER_DATA_DIR": str(jupyter_dirs / "data"),
            "JUPYTER_RUNTIME_DIR": str(jupyter_dirs / "runtime"), "IPYTHONDIR": str(jupyter_dirs / "ipython"),
            "MPLCONFIGDIR": str(jupyter_dirs / "mpl"), "JUPYTERLAB_SETTINGS_DIR": str(jupyter_dirs / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(jupyter_dirs / "workspaces")},
        "driver_token": hub.driver_token,
    }


@pytest.fixture(scope="session")
def hub() -> Hub:
    """The hub, its people, the course released to the exchange; stopped and removed at the end."""
    reason = hub_skip_reason()
    if reason:
        pytest.skip(reason)
    t0 = time.monotonic()
    timings: dict[str, float] = {}

    def lap(name: str) -> None:
        timings[name] = round(time.monotonic() - t0 - sum(timings.values()), 1)

    for name in (INSTRUCTOR, *STUDENTS):
        ensure_user(name)
    root = Path(tempfile.mkdtemp(prefix="autograder-hub-"))
    root.chmod(0o755)
    proc = None
    try:
        hub_dir, exchange, private = root / "hub", root / "exchange", root / INSTRUCTOR
        hub_dir.mkdir(mode=0o700)
        exchange.mkdir()
        exchange.chmod(0o1777)  # nbgrader's exchange: everyone writes, nobody removes another's files
        private.mkdir(mode=0o700)
        course, secret_file = private / "course", private / "course.key"
        course_id = _course(course, exchange, secret_file)
        instructor_env = make_env(private / "env", project=True)
        _chown_tree(private / "course", INSTRUCTOR)
        os.chown(secret_file, pwd.getpwnam(INSTRUCTOR).pw_uid, pwd.getpwnam(INSTRUCTOR).pw_gid)
        os.chown(private, pwd.getpwnam(INSTRUCTOR).pw_uid, pwd.getpwnam(INSTRUCTOR).pw_gid)
        lap("instructor environment")
        hub = Hub(root=root, port=_free_port(), course_id=course_id, course=course, exchange=exchange,
                  homes={s: root / "home" / s for s in STUDENTS},
                  passwords={u: secrets.token_urlsafe(12) for u in (INSTRUCTOR, *STUDENTS)},
                  instructor_env=instructor_env, student_image=root / "image", secret_file=secret_file,
                  driver_token=secrets.token_hex(32), log=hub_dir / "hub.log", proc=None)

        settings = _hub_settings(hub, private / "jupyter")
        (hub_dir / "settings.json").write_text(json.dumps(settings, indent=1))
        (hub_dir / "jupyterhub_config.py").write_text(HUB_CONFIG)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("JUPYTER", "CONFIGPROXY", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"))}
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        env["PYTHONWARNINGS"] = "ignore"
        # The instructor prepares the course as themself: the gradebook and the release first (formgrader, in the
        # course service, opens the gradebook), then, while the hub starts (a student's server is spawned only
        # when asked for), releases it and builds its student kit (with the roster's numbers, from the secret only
        # the instructor can read), and the hub's administrator builds the student image: third-party packages,
        # then the kit's wheel.
        hub.instructor("autograder", "generate", ASSIGNMENT)
        with open(hub.log, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(hub_dir / "jupyterhub_config.py")],
                                    cwd=hub_dir, env=env, stdout=out, stderr=subprocess.STDOUT)
        hub.proc = proc
        kit = private / "kit"
        with ThreadPoolExecutor(1) as pool:
            prepared = pool.submit(lambda: [hub.instructor(*argv) for argv in (
                ("nbgrader", "release_assignment", ASSIGNMENT, "--force"),
                ("autograder", "kit", "--release", ASSIGNMENT, "--out", str(kit)))])
            make_env(hub.student_image, project=False)
            for student, home in hub.homes.items():
                _student_home(home, exchange, course_id)
                home.chmod(0o700)
                _chown_tree(home, student)
            prepared.result()
        lap("course generated, released, kit built; student image")
        subprocess.run([sys.executable, "-m", "pip", "--python", str(hub.student_image / "bin" / "python"),
                        "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check",
                        str(next(kit.glob("*.whl")))], check=True)
        _wait_for_hub(hub, settings["service_port"])
        for student in STUDENTS:  # spawned meanwhile, as a first login would (Hub.start_server waits for them)
            hub.request(f"hub/api/users/{student}/server", method="POST")
        lap("kit installed, hub up")
        hub.setup_seconds = timings
        yield hub
    finally:
        if proc is not None:
            _stop(proc)
        shutil.rmtree(root, ignore_errors=True)


def _wait_for_hub(hub: Hub, service_port: int) -> None:
    """Until the hub's API answers through the proxy, and the course service on its port (a 403 is an answer)."""
    deadline = time.monotonic() + START_TIMEOUT
    hub_up = False
    while True:
        if hub.proc.poll() is not None:
            pytest.fail(f"JupyterHub exited with {hub.proc.returncode}:\n{hub.log_tail()}")
        try:
            if not hub_up:
                hub.request("hub/api/")
                hub_up = True
            urllib.request.urlopen(f"http://127.0.0.1:{service_port}/services/{hub.course_id}/api/status",
                                   timeout=10).close()
            return
        except urllib.error.HTTPError:
            if hub_up:
                return
        except (urllib.error.URLError, OSError, ValueError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"the hub or the course service did not answer in {START_TIMEOUT:.0f} s:\n{hub.log_tail()}")
        time.sleep(0.5)


def _stop(proc: subprocess.Popen) -> None:
    """Stop the hub; it stops the servers and the course service it started."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def hub_browser(hub):
    """Debian's headless Chromium (Playwright), one per session; each person gets a context of their own."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
