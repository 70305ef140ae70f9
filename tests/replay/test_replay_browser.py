"""The --html replay pages in a real browser (issue 14): headless Chromium through Selenium.

For the four-DOF example and a 1,000-state Panda path in its cell: the page loads from file://
with no console error or warning, the canvas is not blank, scrubbing the timeline to the recorded
collision instant turns the colliding link red on the screen, and the clearance the page shows
equals the tool's CSV value at that instant. The Panda page stays under 5 MB.

Also: gjk-clearance's --html-max-frames keeps the instants that matter, the Python analysis's
page (python3 -m libgjk.analysis --html) loads and draws, and scripts/replay_screenshot.py makes
the grid of snapshots the four-DOF example draws its four_dof_frames.png with, or says clearly
that no Chromium is installed. Both replace a browser whose page process dies (Chromium's renderer
crashed now and then under load in CI) and are tested with real crashes.

Run by ctest (tests/replay/CMakeLists.txt sets the programs' paths); skipped, with the reason,
only when no headless Chromium can be started. Needs /usr/bin/python3 with python3-selenium and
python3-pil (scripts/install-deps.sh).
"""

from __future__ import annotations

import base64
import csv
import functools
import io
import json
import math
import os
import struct
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="python3-selenium is not installed")
Image = pytest.importorskip("PIL.Image", reason="python3-pil is not installed")

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH, HEIGHT = 1280, 800
MAX_PAGE_BYTES = 5 * 1024 * 1024


def env_path(name: str) -> Path:
    """A path ctest passes in the environment (a clear failure when it is not set)."""
    value = os.environ.get(name, "")
    assert value, f"{name} is not set: run this test through ctest (tests/replay/CMakeLists.txt)"
    return Path(value)


def run(args: list[str], ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
    """Runs a program (an argument vector, no shell) and checks its exit status."""
    r = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode in ok, f"{args} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
    return r


BROWSER_ATTEMPTS = 3  # browsers tried per page load, as scripts/replay_screenshot.py does


def start_chromium(chromium: str) -> Any:
    """Headless Chromium with WebGL (SwiftShader), the page's console captured."""
    from selenium.webdriver.chrome.options import Options

    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu-sandbox",
                f"--window-size={WIDTH},{HEIGHT}", "--force-device-scale-factor=1",
                "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # As the screenshot script starts its own: a call that hangs times out, and the browser can
    # be killed whole.
    driver = screenshot_script().new_driver(options)
    try:
        driver.set_window_size(WIDTH, HEIGHT)
    except Exception:
        screenshot_script().kill_browser(driver.service)
        raise
    return driver


class Browser:
    """The tests' Chromium: a WebDriver (its methods are this object's), started by open_page or
    restart(), and replaced by open_page when its page process dies. Chromium's renderer crashed
    now and then under load in CI ("Unable to receive message from renderer"), which is no fault
    of the page."""

    def __init__(self, chromium: str = CHROMIUM) -> None:
        self.chromium = chromium
        self.driver: Any = None
        self.starts = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.driver, name)

    def restart(self) -> None:
        """Closes this browser, if any (a dead one may not answer), and starts another."""
        self.quit()
        self.starts += 1
        self.driver = start_chromium(self.chromium)

    def quit(self) -> None:
        """Closes the browser, if one runs (one that died or hangs is killed)."""
        if self.driver is not None:
            screenshot_script().quit_quietly(self.driver)
            self.driver = None

    def kill(self) -> None:
        """Kills the browser at once (a hung one would keep quit() waiting)."""
        if self.driver is not None:
            screenshot_script().kill_browser(self.driver.service)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One browser for the module's page tests; skips them when none can start."""
    b = Browser()
    for attempt in range(1, BROWSER_ATTEMPTS + 1):
        try:
            b.restart()
            break
        except Exception as e:  # noqa: BLE001 - any failure to start means "no browser here"
            if attempt == BROWSER_ATTEMPTS or not browser_lost(e):
                pytest.skip(f"no headless Chromium could be started ({CHROMIUM}, "
                            f"{CHROMEDRIVER}): {e}")
    yield b
    b.quit()


@functools.lru_cache(maxsize=None)
def screenshot_script() -> Any:
    """scripts/replay_screenshot.py as a module: the tests start, sort and kill browsers as it
    does."""
    import importlib.util

    path = env_path("GJK_SOURCE_DIR") / "scripts" / "replay_screenshot.py"
    spec = importlib.util.spec_from_file_location("replay_screenshot", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def browser_lost(error: BaseException) -> bool:
    """The screenshot script's test: the error says the browser or its page process went away,
    or a call hung, not that the page is wrong."""
    return bool(screenshot_script().browser_lost(error))


def open_page(browser: Browser, page: Path) -> None:
    """Loads a page from file:// and waits for the viewer (window.replay.ready). A browser that
    dies on the way is replaced, up to BROWSER_ATTEMPTS browsers in all."""
    for attempt in range(1, BROWSER_ATTEMPTS + 1):
        try:
            if attempt > 1 or browser.driver is None:
                browser.restart()
            browser.get(page.resolve().as_uri())
            deadline = time.monotonic() + 30
            while not browser.execute_script("return !!(window.replay && window.replay.ready)"):
                assert time.monotonic() < deadline, f"{page}: the viewer did not start; " \
                    f"console: {browser.get_log('browser')}"
                time.sleep(0.05)
            return
        except Exception as e:  # noqa: BLE001 - sorted below: only a lost browser is retried
            if isinstance(e, AssertionError) or not browser_lost(e):
                raise
            browser.kill()
            if attempt == BROWSER_ATTEMPTS:
                raise


def console_problems(driver: Any) -> list[dict[str, Any]]:
    """The console's errors and warnings since the last call."""
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def screenshot(driver: Any) -> Any:
    """The viewport as an RGB image."""
    return Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")


def assert_not_blank(driver: Any) -> None:
    """The 3D view shows something: many colours, and not only the background."""
    rect = driver.execute_script(
        "const r = document.querySelector('#view canvas').getBoundingClientRect();"
        "return [r.left, r.top, r.width, r.height];")
    left, top, width, height = (int(v) for v in rect)
    assert width > 200 and height > 200, rect
    view = screenshot(driver).crop((left, top, left + width, top + height))
    pixels = list(view.getdata())
    background = (0xf4, 0xf5, 0xf7)
    drawn = sum(1 for p in pixels if max(abs(a - b) for a, b in zip(p, background)) > 24)
    assert drawn > 0.01 * len(pixels), f"only {drawn} of {len(pixels)} pixels drawn"
    assert len(set(pixels)) > 200, "too few colours: nothing is shaded"


def is_red(rgb: tuple[int, int, int]) -> bool:
    """The collision colour as rendered (lit): red dominates."""
    r, g, b = rgb
    return r > 120 and r > 2.5 * g and r > 2.5 * b


def link_pixel(driver: Any, link: int) -> tuple[int, int, int]:
    """The screen colour at a link's projected centre."""
    p = driver.execute_script(f"return window.replay.projectLink({link});")
    assert p is not None, f"link {link} has no body"
    x, y = round(p["x"]), round(p["y"])
    image = screenshot(driver)
    assert 0 <= x < image.width and 0 <= y < image.height, (p, image.size)
    return image.getpixel((x, y))


def check_collision_instant(driver: Any, run_index: int, time_value: float, link_name: str,
                            csv_distance: float) -> None:
    """Scrubs to the instant; the link is red on the screen and the label shows csv_distance."""
    links = driver.execute_script("return window.replay.links;")
    link = links.index(link_name)
    driver.execute_script(f"window.replay.selectRun({run_index}); window.replay.setObstacles('hidden');")
    frames = driver.execute_script("return window.replay.runs[window.replay.run].frames;")
    times = driver.execute_script(
        f"return Array.from({{length: {frames}}}, (_, f) => window.replay.time(f));")
    frame = min(range(frames), key=lambda f: abs(times[f] - time_value))
    assert abs(times[frame] - time_value) < 1e-6, (times[frame], time_value)

    # Before: the first frame, clear of everything, is not drawn red.
    slider = driver.find_element("id", "slider")
    driver.execute_script("window.replay.setFrame(0);")
    assert not is_red(link_pixel(driver, link)), "the link is red before the collision"

    # Scrub as a user does: the slider's value and its input event.
    driver.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));",
        slider, frame)
    assert driver.execute_script("return window.replay.frame;") == frame
    pixel = link_pixel(driver, link)
    assert is_red(pixel), f"{link_name} at frame {frame} is drawn {pixel}, not red"

    label = driver.find_element("id", "clearance")
    assert label.text == f"{csv_distance:.4f} m"
    assert math.isclose(float(label.get_attribute("data-distance")), csv_distance,
                        rel_tol=0, abs_tol=1e-9)
    assert driver.execute_script("return window.replay.pairLabel();") == f"{csv_distance:.4f} m"
    driver.execute_script("window.replay.setObstacles('transparent');")


# ---------------------------------------------------------------------------------------------
# The four-DOF example (the README's main example)


@pytest.fixture(scope="module")
def four_dof(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's output folder, with four_dof.html."""
    out = tmp_path_factory.mktemp("four_dof")
    run([str(env_path("GJK_FOUR_DOF_EXE")), "--no-plots", "-o", str(out),
         "--html", str(out / "four_dof.html")])
    return out


def test_four_dof_page(browser: Browser, four_dof: Path) -> None:
    """The k = 0 run's first collision: the colliding link red, the CSV's clearance shown."""
    page = four_dof / "four_dof.html"
    print(f"four-DOF page: {page.stat().st_size} bytes")
    open_page(browser, page)
    assert console_problems(browser) == []
    runs = [r["name"] for r in browser.execute_script("return window.replay.runs;")]
    assert runs == ["k = -1", "k = 0"]
    assert_not_blank(browser)

    with open(four_dof / "four_dof_k0.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    first = next(r for r in rows if float(r["min_distance"]) < 0)
    columns = [c for c in first if c.startswith("d_") and first[c] != ""]
    colliding = min(columns, key=lambda c: float(first[c]))
    links = browser.execute_script("return window.replay.links;")
    link = next(name for name in links if colliding.startswith(f"d_{name}_"))
    check_collision_instant(browser, runs.index("k = 0"), float(first["t"]), link,
                            float(first["min_distance"]))
    assert console_problems(browser) == []


# ---------------------------------------------------------------------------------------------
# The Panda in its cell (mesh shelf, point-cloud bin, held part), 1,000 states


@pytest.fixture(scope="module")
def panda(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gjk-clearance's outputs for a 1,000-state Panda path: panda.html and states.csv."""
    out = tmp_path_factory.mktemp("panda")
    source = env_path("GJK_SOURCE_DIR")
    path = run(["/usr/bin/python3", str(source / "examples/clearance/make_panda_path.py"), "1000"])
    (out / "path.csv").write_text(path.stdout, encoding="utf-8")
    run([str(env_path("GJK_CLEARANCE_EXE")),
         "--urdf", str(env_path("GJK_SHARED_ROBOT_MODELS") / "panda/panda.urdf"),
         "--scene", str(source / "robots/scenes/panda_cell.yaml"), "--path", str(out / "path.csv"),
         "--states-out", str(out / "states.csv"), "--html", str(out / "panda.html"),
         "--margin", "0.02", "--no-progress"], ok=(1,))  # exit 1: states below the margin
    return out


def test_panda_page_size(panda: Path) -> None:
    """Geometry once, poses as float32: the 1,000-state page is under 5 MB."""
    size = (panda / "panda.html").stat().st_size
    print(f"Panda 1,000-state page: {size} bytes")
    assert size < MAX_PAGE_BYTES


def test_panda_page(browser: Browser, panda: Path) -> None:
    """The first colliding state of states.csv: its link red, its clearance shown."""
    open_page(browser, panda / "panda.html")
    assert console_problems(browser) == []
    assert_not_blank(browser)
    with open(panda / "states.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert browser.execute_script("return window.replay.runs[0].frames;") == len(rows) == 1000
    # Every state's clearance is the CSV's, exactly.
    page = browser.execute_script(
        "return Array.from({length: 1000}, (_, f) => window.replay.clearance(f));")
    assert page == [float(r["distance"]) for r in rows]
    first = next(r for r in rows if float(r["distance"]) < 0)
    check_collision_instant(browser, 0, float(first["t"]), first["link"], float(first["distance"]))
    assert browser.execute_script("return window.replay.margin;") == 0.02
    assert console_problems(browser) == []


def test_panda_page_with_exact_link_meshes(browser: Browser, panda: Path) -> None:
    """--link-meshes mesh: the page with the links' exact triangles loads and draws."""
    source = env_path("GJK_SOURCE_DIR")
    page = panda / "panda_mesh.html"
    run([str(env_path("GJK_CLEARANCE_EXE")),
         "--urdf", str(env_path("GJK_SHARED_ROBOT_MODELS") / "panda/panda.urdf"),
         "--scene", str(source / "robots/scenes/panda_cell.yaml"), "--path", str(panda / "path.csv"),
         "--link-meshes", "mesh", "--html", str(page), "--no-progress"])
    open_page(browser, page)
    assert console_problems(browser) == []
    assert_not_blank(browser)


# ---------------------------------------------------------------------------------------------
# gjk-plan's page, and the tools' errors


def test_plan_page(browser: Browser, tmp_path: Path) -> None:
    """gjk-plan --html: the interpolated path, one frame per profile state, timed by arc length."""
    page = tmp_path / "plan.html"
    run([str(env_path("GJK_PLAN_EXE")), "--robot", "four_dof", "--no-plots", "--no-progress",
         "--profile-states", "200", "-o", str(tmp_path), "--html", str(page)])
    open_page(browser, page)
    assert console_problems(browser) == []
    assert browser.execute_script("return window.replay.runs;") == [
        {"name": "rrtconnect", "frames": 200}]
    assert "arc length" in browser.find_element("id", "time").text
    assert_not_blank(browser)


def page_data(page: Path) -> dict[str, Any]:
    """The JSON a replay page carries (the runs' arrays left in base64)."""
    text = page.read_text(encoding="utf-8")
    start = text.index('<script id="replay-data" type="application/json">')
    start = text.index(">", start) + 1
    return json.loads(text[start:text.index("</script>", start)])


def float64s(field: str) -> list[float]:
    """A page's base64 little-endian float64 array."""
    raw = base64.b64decode(field)
    return list(struct.unpack(f"<{len(raw) // 8}d", raw))


def test_clearance_html_max_frames(browser: Browser, panda: Path) -> None:
    """--html-max-frames 50 on the 1,000-state path: 50 frames, among them the worst state and
    the first state of every collision, with the CSV's clearance; the page plays in the browser."""
    source = env_path("GJK_SOURCE_DIR")
    page = panda / "panda_50.html"
    run([str(env_path("GJK_CLEARANCE_EXE")),
         "--urdf", str(env_path("GJK_SHARED_ROBOT_MODELS") / "panda/panda.urdf"),
         "--scene", str(source / "robots/scenes/panda_cell.yaml"), "--path", str(panda / "path.csv"),
         "--html", str(page), "--html-max-frames", "50", "--no-progress"])
    with open(panda / "states.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    distance = [float(r["distance"]) for r in rows]
    data = page_data(page)
    assert data["runs"][0]["frames"] == 50
    times = float64s(data["runs"][0]["times"])
    frames = [next(i for i, r in enumerate(rows) if float(r["t"]) == t) for t in times]
    assert frames == sorted(set(frames)) and frames[0] == 0 and frames[-1] == len(rows) - 1
    onsets = [i for i, d in enumerate(distance) if d < 0 and (i == 0 or distance[i - 1] >= 0)]
    worst = min(range(len(rows)), key=lambda i: distance[i])
    assert onsets and set(onsets) | {worst} <= set(frames), (onsets, worst, frames)
    assert float64s(data["runs"][0]["clearance"]) == [distance[i] for i in frames]
    print(f"Panda page with 50 frames: {page.stat().st_size} bytes "
          f"(1,000 frames: {(panda / 'panda.html').stat().st_size})")
    open_page(browser, page)
    assert console_problems(browser) == []
    assert browser.execute_script("return window.replay.runs[0].frames;") == 50
    assert_not_blank(browser)


def test_four_dof_html_max_frames(tmp_path: Path) -> None:
    """The example's --html-max-frames: 100 frames per run, the k = 0 run keeps its collision
    onset and its deepest instant, at the CSV's times."""
    page = tmp_path / "four_dof_100.html"
    run([str(env_path("GJK_FOUR_DOF_EXE")), "--no-plots", "-o", str(tmp_path),
         "--html", str(page), "--html-max-frames", "100"])
    data = page_data(page)
    assert [(r["name"], r["frames"]) for r in data["runs"]] == [("k = -1", 100), ("k = 0", 100)]
    with open(tmp_path / "four_dof_k0.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    times = float64s(data["runs"][1]["times"])
    onset = next(float(r["t"]) for r in rows if float(r["min_distance"]) < 0)
    assert onset in times, onset
    assert times[0] == 0.0 and times[-1] == float(rows[-1]["t"])
    # The deepest instant (the simulation's and the page's analyses agree to rounding; on the
    # flat bottom of the dip they may pick neighbouring states, with the same clearance).
    deepest = min(float(r["min_distance"]) for r in rows)
    assert math.isclose(min(float64s(data["runs"][1]["clearance"])), deepest, abs_tol=1e-9)


# ---------------------------------------------------------------------------------------------
# The Python analysis's page (python3 -m libgjk.analysis --html)


def test_python_analysis_page(browser: Browser, tmp_path: Path) -> None:
    """The sharded analysis of two four-DOF paths writes a page that loads and draws."""
    python_path = os.environ.get("GJK_PYTHON_PATH", "")
    if not python_path:
        pytest.skip("the Python package is not built (GJK_BUILD_PYTHON=OFF)")
    source = env_path("GJK_SOURCE_DIR")
    paths = []
    for k, end in enumerate(([0.0, 1.2, -2.6, -0.5], [0.5, 1.0, -2.1, 0.2])):
        lines = ["t,joint1,joint2,joint3,joint4"]
        for i in range(300):
            s = i / 299
            q = [a + s * (b - a) for a, b in zip([0.0, 1.5708, -2.618, -0.5236], end)]
            lines.append(",".join(str(v) for v in [0.01 * i, *q]))
        path = tmp_path / f"path{k}.csv"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    page = tmp_path / "analysis.html"
    env = dict(os.environ, PYTHONPATH=python_path)
    r = subprocess.run(["/usr/bin/python3", "-m", "libgjk.analysis",
                        str(source / "robots/models/four_dof/four_dof_arm.urdf"),
                        str(source / "robots/scenes/two_pyramids.yaml"), *paths,
                        "--out", str(tmp_path / "res"), "--workers", "0", "--html", str(page)],
                       capture_output=True, text=True, timeout=120, check=False, env=env)
    assert r.returncode == 0, r.stderr
    open_page(browser, page)
    assert console_problems(browser) == []
    assert browser.execute_script("return window.replay.runs;") == [
        {"name": "path0", "frames": 300}, {"name": "path1", "frames": 300}]
    assert_not_blank(browser)
    assert console_problems(browser) == []


# ---------------------------------------------------------------------------------------------
# Snapshots for documents (scripts/replay_screenshot.py), and the example's frames picture


def test_screenshot_grid(four_dof: Path, tmp_path: Path) -> None:
    """--times: one row per run, one column per instant, each tile the drawn 3D view."""
    source = env_path("GJK_SOURCE_DIR")
    png = tmp_path / "grid.png"
    r = run(["/usr/bin/python3", str(source / "scripts/replay_screenshot.py"),
             str(four_dof / "four_dof.html"), str(png), "--times", "0,7,16.7", "--ghosts",
             "--size", "800x500"])
    assert r.stdout.strip() == f"wrote: {png}"
    assert "page console" not in r.stderr, r.stderr
    image = Image.open(png).convert("RGB")
    assert image.size == (3 * (800 - 330), 2 * 500)  # the view: the window less the side panel
    tile_w, tile_h = image.width // 3, image.height // 2
    for row in range(2):
        for col in range(3):
            tile = image.crop((col * tile_w, row * tile_h, (col + 1) * tile_w, (row + 1) * tile_h))
            assert len(set(tile.getdata())) > 200, f"tile {row}, {col} is blank"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.png"]


def test_screenshot_without_chromium(four_dof: Path, tmp_path: Path) -> None:
    """No browser: exit 4, saying what to install; the example says so too, keeps its CSVs and
    clearance plots and exits 4 (an output it could not make)."""
    source = env_path("GJK_SOURCE_DIR")
    env = dict(os.environ, GJK_CHROMIUM=str(tmp_path / "no-chromium"))
    r = subprocess.run(["/usr/bin/python3", str(source / "scripts/replay_screenshot.py"),
                        str(four_dof / "four_dof.html"), str(tmp_path / "x.png")],
                       capture_output=True, text=True, timeout=60, check=False, env=env)
    assert r.returncode == 4
    assert f"no headless Chromium: {tmp_path / 'no-chromium'} is not installed" in r.stderr
    assert "chromium-driver" in r.stderr
    out = tmp_path / "example"
    r = subprocess.run([str(env_path("GJK_FOUR_DOF_EXE")), "-o", str(out), "--no-compare"],
                       capture_output=True, text=True, timeout=120, check=False, env=env)
    assert r.returncode == 4, r.stderr
    assert "four_dof_frames.png is not written. It needs headless Chromium" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "four_dof_clearance.png", "four_dof_joints.png", "four_dof_k-1.csv"]


def crashing_chromium(folder: Path, crashes: int, renderer: str = "exit 1") -> Path:
    """A Chromium whose first `crashes` starts launch every page process through a program that
    runs the shell command `renderer`: "exit 1" makes each page of those browsers die ("tab
    crashed"), as Chromium's renderer sometimes does under load, and "exec sleep 611" makes them
    hang (ChromeDriver then waits for good); later starts are the real browser."""
    exits = folder / "renderer-exits"
    exits.write_text(f"#!/bin/sh\n{renderer}\n")
    starts = folder / "starts"
    wrapper = folder / "chromium"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"echo start >> '{starts}'\n"
        f"if [ $(wc -l < '{starts}') -le {crashes} ]; then\n"
        f"  exec {CHROMIUM} --renderer-cmd-prefix='{exits}' \"$@\"\n"
        "fi\n"
        f"exec {CHROMIUM} \"$@\"\n")
    for program in (exits, wrapper):
        program.chmod(0o755)
    return wrapper


def test_page_tests_survive_a_crashed_page(browser: Browser, four_dof: Path,
                                           tmp_path: Path) -> None:
    """The page tests' open_page replaces a browser whose page died: after two such browsers the
    third shows the page; after three, the WebDriver's error reaches the test."""
    for crashes, loads in ((2, True), (3, False)):
        folder = tmp_path / f"crashes-{crashes}"
        folder.mkdir()
        b = Browser(str(crashing_chromium(folder, crashes)))
        try:
            if loads:
                open_page(b, four_dof / "four_dof.html")
                assert console_problems(b) == []
                assert_not_blank(b)
            else:
                with pytest.raises(Exception) as lost:
                    open_page(b, four_dof / "four_dof.html")
                assert browser_lost(lost.value), lost.value
            assert b.starts == 3
        finally:
            b.quit()


def test_screenshot_survives_a_crashed_page(browser: Browser, four_dof: Path,
                                            tmp_path: Path) -> None:
    """A browser whose pages die is replaced: after two such browsers, the third writes the PNG;
    after three, exit 4 says so, writes nothing and shows no Python trace."""
    source = env_path("GJK_SOURCE_DIR")
    for crashes, status in ((2, 0), (3, 4)):
        folder = tmp_path / f"crashes-{crashes}"
        folder.mkdir()
        env = dict(os.environ, GJK_CHROMIUM=str(crashing_chromium(folder, crashes)))
        png = folder / "out.png"
        r = subprocess.run(["/usr/bin/python3", str(source / "scripts/replay_screenshot.py"),
                            str(four_dof / "four_dof.html"), str(png), "--times", "0,16.7"],
                           capture_output=True, text=True, timeout=300, check=False, env=env)
        assert r.returncode == status, r.stderr
        # Mostly "(tab crashed)"; now and then, under load, the dead page leaves ChromeDriver
        # waiting until the call timeout ("Read timed out"): a lost browser either way.
        retries = [line for line in r.stderr.splitlines()
                   if "trying again in a new browser" in line]
        assert len(retries) == min(crashes, 2), r.stderr
        assert all("tab crashed" in line or "Read timed out" in line for line in retries), r.stderr
        assert "Traceback" not in r.stderr, r.stderr
        assert (folder / "starts").read_text().count("start") == min(crashes + 1, 3)
        if status == 0:
            assert r.stdout.strip() == f"wrote: {png}"
            assert Image.open(png).size == (2 * (900 - 330), 2 * 520)
        else:
            assert "headless Chromium failed 3 times in a row, last: " in r.stderr, r.stderr
            assert f"; {png} is not written" in r.stderr, r.stderr
            assert not png.exists()
        leftovers = [p.name for p in folder.iterdir() if p.name.startswith(".out.png")]
        assert leftovers == []


def test_screenshot_survives_a_hung_browser(browser: Browser, four_dof: Path,
                                            tmp_path: Path) -> None:
    """A browser whose page never starts leaves ChromeDriver waiting: after the call timeout
    (BROWSER_CALL_SECONDS) it is killed, with its page processes, and a new one writes the PNG.
    The page tests' open_page does the same."""
    env = dict(os.environ, GJK_CHROMIUM=str(crashing_chromium(tmp_path, 1, "exec sleep 611")))
    png = tmp_path / "out.png"
    r = subprocess.run(["/usr/bin/python3",
                        str(env_path("GJK_SOURCE_DIR") / "scripts/replay_screenshot.py"),
                        str(four_dof / "four_dof.html"), str(png), "--times", "0,16.7"],
                       capture_output=True, text=True, timeout=300, check=False, env=env)
    assert r.returncode == 0, r.stderr
    assert "Read timed out" in r.stderr and "trying again in a new browser (2 of 3)" in r.stderr
    assert Image.open(png).size == (2 * (900 - 330), 2 * 520)
    folder = tmp_path / "page-test"
    folder.mkdir()
    b = Browser(str(crashing_chromium(folder, 1, "exec sleep 611")))
    try:
        open_page(b, four_dof / "four_dof.html")
        assert_not_blank(b)
        assert b.starts == 2
    finally:
        b.quit()
    # The hung browsers' page processes (each a "sleep 611") went with them.
    hung = subprocess.run(["pgrep", "-x", "-f", "sleep 611"], capture_output=True, text=True,
                          check=False)
    assert hung.stdout == "", f"hung page processes left: {hung.stdout}"


def test_clearance_html_errors(tmp_path: Path) -> None:
    """An unwritable --html is an output error naming the file, leaving nothing; --html and
    --out naming one file is a usage error."""
    source = env_path("GJK_SOURCE_DIR")
    path = tmp_path / "path.csv"
    path.write_text("0 1.5708 -2.618 -0.5236\n", encoding="utf-8")
    args = [str(env_path("GJK_CLEARANCE_EXE")),
            "--urdf", str(source / "robots/models/four_dof/four_dof_arm.urdf"),
            "--scene", str(source / "robots/scenes/two_pyramids.yaml"), "--path", str(path)]
    missing = tmp_path / "no" / "replay.html"
    r = run(args + ["--html", str(missing)], ok=(4,))
    assert str(missing) in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["path.csv"]
    out = tmp_path / "same.html"
    r = run(args + ["--html", str(out), "--out", str(out)], ok=(2,))
    assert "--html and --out name the same file" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["path.csv"]
