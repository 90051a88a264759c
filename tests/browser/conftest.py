"""Fixtures for the browser tests: one JupyterLab server and one headless Chromium per session.

The tests drive JupyterLab 4 (with nbgrader's lab extension) in Debian's Chromium through the
Python ``playwright`` package (sync API) and ``executable_path``; Playwright's own browser
download is never used. If Chromium or the ``playwright`` package is missing the tests skip
with the reason. ``.ci/install-system-deps.sh`` installs Chromium in CI.

The server runs from a fresh temporary root (its working directory too) into which each test
copies the notebooks it opens; the Jupyter config/data/runtime/settings/workspace dirs point
into the same temporary tree so nothing of the user's setup leaks in or out.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .nbtools import REPO, SCREENSHOTS  # noqa: E402
CHROMIUM = Path(os.environ.get("AUTOGRADER_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# User settings for the test server: render every cell (no windowing, so off-screen outputs are
# in the DOM), and no news/update toasts over the notebook.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}
SERVER_START_TIMEOUT = 120.0


def browser_skip_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return (
            f"no Chromium at {CHROMIUM}: install Debian's chromium "
            "(`.ci/install-system-deps.sh` as root, or `apt-get install chromium`)"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the `playwright` Python package is not installed (pip install -e '.[test]')"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LabServer:
    root: Path
    port: int
    token: str
    log: Path
    proc: subprocess.Popen = field(repr=False)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "lab") -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{sep}token={self.token}"

    def api(self, path: str, method: str = "GET", data: dict | None = None) -> dict:
        body = None if data is None else json.dumps(data).encode()
        req = urllib.request.Request(
            self.url(path), data=body, method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read() or b"null")

    def log_tail(self, n: int = 60) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no server log)"

    def shutdown_kernels(self) -> None:
        """Stop every kernel and session so the next test starts from a quiet server."""
        try:
            for s in self.api("api/sessions"):
                self.api(f"api/sessions/{s['id']}", method="DELETE")
            for k in self.api("api/kernels"):
                self.api(f"api/kernels/{k['id']}", method="DELETE")
        except (urllib.error.URLError, OSError, ValueError):
            pass


def _write_settings(settings_dir: Path) -> None:
    for rel, value in LAB_SETTINGS.items():
        p = settings_dir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(value))


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory) -> LabServer:
    """A JupyterLab server on a free loopback port with a random token; stopped at the end."""
    reason = browser_skip_reason()
    if reason:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("jupyterlab")
    root = base / "root"
    root.mkdir()
    # nbgrader's Validate handler reads nbgrader_config.py from the server's working directory
    # (and the Jupyter config path); put the course's there so validation uses the course's
    # settings (cell timeout, stubs). Without it validation still works, with nbgrader's defaults.
    for name in ("nbgrader_config.py", "course.yml"):
        if (REPO / name).is_file():
            shutil.copy2(REPO / name, root / name)
    server = start_lab(base, root, cwd=root)
    try:
        yield server
    finally:
        stop_lab(server)


def start_lab(base: Path, root: Path, cwd: Path, extra_args: tuple[str, ...] = ()) -> LabServer:
    """Start JupyterLab serving ``root`` from working directory ``cwd``, its Jupyter dirs under ``base``
    (``base/config`` is its JUPYTER_CONFIG_DIR); wait until it answers."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "MPLBACKEND"))}
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"), ("IPYTHONDIR", "ipython"),
        ("MPLCONFIGDIR", "mpl"),
    ]:
        (base / sub).mkdir(exist_ok=True)
        env[var] = str(base / sub)
    _write_settings(base / "settings")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONWARNINGS"] = "ignore"  # the server's own deprecation noise goes to its log only

    port = _free_port()
    token = secrets.token_hex(24)
    log = base / "server.log"
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--ServerApp.open_browser=False",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.allow_root=True",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        *extra_args,
    ]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = LabServer(root=root, port=port, token=token, log=log, proc=proc)
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while True:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited with {proc.returncode}:\n{server.log_tail()}")
        try:
            server.api("api/status")
            return server
        except (urllib.error.URLError, OSError, ValueError):
            if time.monotonic() > deadline:
                stop_lab(server)
                pytest.fail(f"JupyterLab did not answer in {SERVER_START_TIMEOUT:.0f} s:\n"
                            f"{server.log_tail()}")
            time.sleep(0.5)


def stop_lab(server: LabServer) -> None:
    """Stop the server's kernels, then the server."""
    server.shutdown_kernels()
    server.proc.terminate()
    try:
        server.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait(timeout=10)


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium driven by Playwright (sync API); one per session."""
    reason = browser_skip_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    # Playwright gives every launch a fresh, empty profile (--user-data-dir) of its own.
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def browser_context(browser):
    """One browser context for the session, so JupyterLab's scripts come from its cache."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        yield context
    finally:
        context.close()


@pytest.fixture(scope="session")
def _lab_tab(browser_context, lab_server):
    """The one JupyterLab page of the session (loading the app costs 10-15 s on 2 busy cores),
    reopened only after a test leaves it in an unknown state."""
    holder = {"page": None, "errors": []}
    yield holder
    if holder["page"] is not None and not holder["page"].is_closed():
        holder["page"].close()


def _new_lab_page(browser_context, lab_server, holder):
    page = browser_context.new_page()
    page.set_default_timeout(30_000)
    page.on("pageerror", lambda exc: holder["errors"].append(str(exc)))
    page.goto(lab_server.url("lab?reset"), wait_until="domcontentloaded")
    page.wait_for_selector("#jp-menu-panel .lm-MenuBar-item", timeout=120_000)
    page.wait_for_selector("#jp-main-dock-panel .lm-TabBar-tab", timeout=120_000)
    holder["page"] = page
    return page


@pytest.fixture
def lab(browser_context, lab_server, _lab_tab, request):
    """The session's JupyterLab page with the helpers in :class:`LabPage`; at the end of the
    test every tab is closed and every kernel stopped."""
    t0 = time.monotonic()
    page = _lab_tab["page"]
    if page is None or page.is_closed():
        page = _new_lab_page(browser_context, lab_server, _lab_tab)
    _lab_tab["errors"].clear()
    helper = LabPage(page, lab_server, _lab_tab["errors"])
    helper.timings["app"] = time.monotonic() - t0
    try:
        yield helper
    finally:
        if getattr(request.node, "rep_call_failed", False):
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            try:
                page.screenshot(path=str(SCREENSHOTS / f"FAILED-{_slug(request.node.name)}.png"))
            except Exception:  # noqa: BLE001 - best effort on a failing test
                pass
        try:
            helper.close_all_tabs()
        except Exception:  # noqa: BLE001 - start the next test from a fresh page instead
            page.close()
            _lab_tab["page"] = None
        lab_server.shutdown_kernels()
        print(f"\n[browser timings] {request.node.name}: "
              + ", ".join(f"{k} {v:.1f} s" for k, v in helper.timings.items()))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    if rep.when == "call":
        item.rep_call_failed = rep.failed
    return rep


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120]


# --------------------------------------------------------------------------------------------
# Driving JupyterLab
# --------------------------------------------------------------------------------------------

CURRENT = "#jp-main-dock-panel .jp-NotebookPanel:not(.lm-mod-hidden)"
JS_RUN_STATE = """
(sel) => {
  const panel = document.querySelector(sel);
  if (!panel) return null;
  const ind = panel.querySelector('.jp-Notebook-ExecutionIndicator');
  const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
      .map(p => p.textContent.trim());
  return {status: ind ? ind.getAttribute('data-status') : null, prompts};
}
"""
JS_KERNEL_READY = """
(sel) => {
  const panel = document.querySelector(sel);
  const ind = panel && panel.querySelector('.jp-Notebook-ExecutionIndicator');
  const bar = document.querySelector('#jp-main-statusbar');
  if (!ind || !bar || ind.getAttribute('data-status') !== 'idle') return false;
  const text = bar.innerText;
  return /\\|\\s*Idle/.test(text) && !/No Kernel/.test(text);
}
"""
JS_SCROLL_EXTRA = """
(sel) => {
  const panel = document.querySelector(sel);
  let extra = 0;
  for (const el of panel.querySelectorAll('*')) {
    const hidden = el.scrollHeight - el.clientHeight;
    if (hidden > extra && getComputedStyle(el).overflowY !== 'visible') extra = hidden;
  }
  return extra;
}
"""
JS_SCROLL_TOP = """
(sel) => {
  for (const el of document.querySelector(sel).querySelectorAll('*')) {
    if (el.scrollTop > 0) el.scrollTop = 0;
  }
}
"""
JS_CELLS = """
(sel) => {
  const panel = document.querySelector(sel);
  return [...panel.querySelectorAll('.jp-Notebook .jp-Cell')].map((c, i) => ({
    index: i,
    code: c.classList.contains('jp-CodeCell'),
    prompt: (c.querySelector('.jp-InputArea-prompt') || {textContent: ''}).textContent.trim(),
    outputs: [...c.querySelectorAll('.jp-OutputArea-output')].map(o => ({
      mime: o.getAttribute('data-mime-type') || '',
      text: o.innerText,
    })),
    images: [...c.querySelectorAll('.jp-OutputArea-output img')].map(img => ({
      complete: img.complete, width: img.naturalWidth, height: img.naturalHeight,
      src: (img.getAttribute('src') || '').slice(0, 30),
    })),
  }));
}
"""


class LabPage:
    def __init__(self, page, server: LabServer, page_errors: list[str] | None = None):
        self.page = page
        self.server = server
        self.page_errors: list[str] = [] if page_errors is None else page_errors
        self.timings: dict[str, float] = {}

    # -- navigation ---------------------------------------------------------------------------
    def open_notebook(self, relpath: str, timeout: float = 90_000) -> None:
        """Open ``relpath`` (relative to the server root) with File > Open from Path…, as a
        user would; wait until its kernel is idle."""
        t0 = time.monotonic()
        self.click_menu("File", "filebrowser:open-path")
        dialog = self.page.locator(".jp-Dialog")
        dialog.locator("input").fill(relpath)
        dialog.locator("input").press("Enter")
        dialog.wait_for(state="detached")
        name = relpath.rsplit("/", 1)[-1]
        self.page.locator(".lm-TabBar-tab.jp-mod-current .lm-TabBar-tabLabel",
                          has_text=re.compile(rf"^{re.escape(name)}$")).wait_for(timeout=timeout)
        self.page.wait_for_selector(f"{CURRENT} .jp-Notebook .jp-Cell", timeout=timeout)
        self.timings["open"] = time.monotonic() - t0
        self.wait_kernel_idle(timeout=timeout)
        self.timings["kernel"] = time.monotonic() - t0 - self.timings["open"]

    def close_all_tabs(self) -> None:
        """Save the current notebook (a staged copy) and close every tab; raise if a dialog or
        anything else gets in the way."""
        if self.page.locator(".jp-Dialog").count():
            raise RuntimeError("a dialog is open")
        if self.page.locator(CURRENT).count():
            self.save()
        self.click_menu("File", "application:close-all")
        self.page.wait_for_function(
            "() => !document.querySelector('#jp-main-dock-panel .jp-NotebookPanel')"
            " && !document.querySelector('.jp-Dialog')", timeout=10_000)

    def wait_kernel_idle(self, timeout: float = 90_000) -> None:
        """Wait until the notebook's kernel is started, connected and idle.

        The toolbar's execution indicator alone is not enough: it reads "idle" for a moment
        while the status bar still says "No Kernel | Initializing" (measured), and a Run All
        clicked then is lost. So also wait for the status bar's "<kernel> | Idle".
        """
        self.page.wait_for_function(JS_KERNEL_READY, arg=CURRENT, timeout=timeout)

    # -- running ------------------------------------------------------------------------------
    def click_menu(self, menu: str, command: str) -> None:
        """Click top menu ``menu`` then the entry bound to Lumino command ``command``."""
        self.page.locator("#jp-menu-panel .lm-MenuBar-item",
                          has_text=re.compile(rf"^\s*{re.escape(menu)}\s*$")).click()
        self.page.locator(f'.lm-Menu:visible li.lm-Menu-item[data-command="{command}"]').click()

    def run_all(self, timeout: float = 240_000) -> float:
        """Run > Run All Cells; wait until no cell is queued and the kernel is idle.

        Returns the seconds it took. A cell that never ran keeps an empty prompt.
        """
        t0 = time.monotonic()
        self.click_menu("Run", "runmenu:run-all")
        deadline = t0 + timeout / 1000
        stable = 0
        while True:
            st = self.page.evaluate(JS_RUN_STATE, CURRENT)
            busy = st is None or st["status"] != "idle" or any("*" in p for p in st["prompts"])
            started = st is not None and any(re.search(r"\[\d+\]", p) for p in st["prompts"])
            stable = stable + 1 if (started and not busy) else 0
            if stable >= 3:  # idle on three polls in a row (0.9 s)
                self.timings["run_all"] = time.monotonic() - t0
                return self.timings["run_all"]
            if time.monotonic() > deadline:
                raise AssertionError(f"Run All did not finish in {timeout / 1000:.0f} s: {st}")
            if not started and not busy and time.monotonic() - t0 > 60:
                raise AssertionError(f"Run All started no cell in 60 s: {st}")
            self.page.wait_for_timeout(300)

    def save(self) -> None:
        self.click_menu("File", "docmanager:save")
        # the dirty marker lives on the tab; wait until it is gone
        self.page.wait_for_function(
            "() => !document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty')")

    def validate(self, timeout: float = 240_000) -> tuple[str, str]:
        """Click nbgrader's "Validate" toolbar button; return the result dialog's title and text
        (and close it)."""
        toolbar = self.page.locator(f"{CURRENT} .jp-NotebookPanel-toolbar")
        t0 = time.monotonic()
        toolbar.get_by_text("Validate", exact=True).click()
        dialog = self.page.locator(".jp-Dialog")
        dialog.wait_for(state="visible", timeout=timeout)
        title = dialog.locator(".jp-Dialog-header").inner_text().strip()
        body = dialog.locator(".jp-Dialog-body").inner_text()
        dialog.locator(".jp-Dialog-footer button").last.click()
        dialog.wait_for(state="detached")
        self.timings["validate"] = time.monotonic() - t0
        return title, body

    # -- reading ------------------------------------------------------------------------------
    def cells(self) -> list[dict]:
        return self.page.evaluate(JS_CELLS, CURRENT)

    def hide_left_sidebar(self) -> None:
        """Collapse the file browser (click its active tab), so the notebook gets the width."""
        if self.page.locator("#jp-left-stack").is_visible():
            self.page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").first.click()
            self.page.locator("#jp-left-stack").wait_for(state="hidden", timeout=10_000)

    def screenshot_notebook(self, name: str, max_height: int = 16_000) -> Path:
        """A screenshot of the whole notebook: the window is made as tall as the notebook's
        scrolled content (up to ``max_height`` pixels), then restored."""
        self.hide_left_sidebar()
        size = self.page.viewport_size
        extra = self.page.evaluate(JS_SCROLL_EXTRA, CURRENT)
        self.page.set_viewport_size(
            {"width": size["width"], "height": min(size["height"] + max(extra, 0), max_height)})
        try:
            self.page.evaluate(JS_SCROLL_TOP, CURRENT)
            self.page.wait_for_timeout(500)
            return self.screenshot(name, full_page=False)
        finally:
            self.page.set_viewport_size(size)

    def screenshot(self, name: str, full_page: bool = True) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{_slug(name)}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path
