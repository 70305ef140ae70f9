#!/usr/bin/python3
"""PNG snapshots of a --html replay page (issue 14), rendered by headless Chromium.

Usage: /usr/bin/python3 scripts/replay_screenshot.py PAGE OUT.png [--run NAME] [--time T]
       [--times T1,T2,...] [--ghosts] [--obstacles opaque|transparent|hidden]
       [--size WIDTHxHEIGHT] [--quiet]

Opens PAGE (written by gjk-clearance, gjk-plan, four_dof_pyramids or python3 -m libgjk.analysis
with --html), selects the run and the instant nearest T, and saves the browser window as OUT.png.
With --times, OUT.png is a grid of the 3D view instead: one row per run (every run, or the --run
one), one column per instant, each tile captioned with the run, the instant and the clearance
(four_dof_pyramids draws its four_dof_frames.png so). The PNG is written atomically.

Needs Debian's chromium, chromium-driver, python3-selenium and python3-pil
(scripts/install-deps.sh installs them); GJK_CHROMIUM and GJK_CHROMEDRIVER name other binaries.

Exit status: 0 written; 2 usage error; 3 the page cannot be read or is not a replay page (or the
run is unknown); 4 no headless Chromium (not installed, or it could not start) or the PNG could
not be written.

Chromium's page process sometimes dies under load ("tab crashed", "Unable to receive message from
renderer"), or leaves a WebDriver call waiting for good; such a browser is killed (after 30 s
without an answer, for a hung one) and the snapshot taken again in a new browser, up to three
browsers in all. Nothing is written until one of them has rendered every tile.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, List, NoReturn, Optional, Sequence, Tuple

# Absolute, since ChromeDriver does not look a relative binary up in our working directory.
CHROMIUM = os.path.abspath(os.environ.get("GJK_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = os.path.abspath(os.environ.get("GJK_CHROMEDRIVER", "/usr/bin/chromedriver"))
INSTALL_HINT = ("install Debian's chromium, chromium-driver, python3-selenium and python3-pil "
                "(bash scripts/install-deps.sh does)")
BROWSER_ATTEMPTS = 3
# A WebDriver call still unanswered after this long is taken for a hung browser: a page process
# that dies before ChromeDriver watches it can leave the call waiting for good (seen under load).
# The browser is then killed and another tried, as after a crash.
BROWSER_CALL_SECONDS = 30
# WebDriver messages, once the browser has started, that mean it or its page process went away,
# not that the page is wrong: worth a new browser. (A failed start is always worth one.)
BROWSER_LOST_MESSAGES = ("tab crashed", "renderer", "disconnected", "session deleted",
                         "chrome not reachable")


class BrowserLost(Exception):
    """Chromium or its page process died, or it did not start: another browser may succeed."""


def fail(code: int, message: str) -> NoReturn:
    """Prints `message` on stderr and exits with `code`."""
    print(f"replay_screenshot: {message}", file=sys.stderr)
    sys.exit(code)


def parse_size(text: str) -> Tuple[int, int]:
    """WIDTHxHEIGHT in pixels, each 200..4000."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got '{text}'") from None
    if not (200 <= w <= 4000 and 200 <= h <= 4000):
        raise argparse.ArgumentTypeError(f"width and height must be 200..4000, got '{text}'")
    return w, h


def parse_times(text: str) -> List[float]:
    """Comma-separated instants, 1 to 12 of them."""
    try:
        times = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got '{text}'") \
            from None
    if not 1 <= len(times) <= 12:
        raise argparse.ArgumentTypeError(f"1 to 12 instants, got {len(times)}")
    return times


def start_browser(width: int, height: int) -> Any:
    """Headless Chromium with software WebGL, the page's console captured."""
    for program in (CHROMIUM, CHROMEDRIVER):
        if not os.access(program, os.X_OK):
            fail(4, f"no headless Chromium: {program} is not installed; {INSTALL_HINT}")
    try:
        from selenium.webdriver.chrome.options import Options
    except ImportError as e:
        fail(4, f"python3-selenium is needed ({e}); {INSTALL_HINT}")
    options = Options()
    options.binary_location = CHROMIUM
    # The network is closed on build machines: no background connections to refuse.
    for arg in ("--headless=new", "--no-sandbox", f"--window-size={width},{height}",
                "--force-device-scale-factor=1", "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader", "--hide-scrollbars", "--no-first-run",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = new_driver(options)
    except Exception as e:  # noqa: BLE001 - any start failure is reported the same way
        raise BrowserLost(f"cannot start headless Chromium ({CHROMIUM}, {CHROMEDRIVER}): "
                          f"{first_line(e)}") from None
    try:
        # The window's inner size, so the screenshot has the size asked for.
        inner = driver.execute_script("return [window.outerWidth - window.innerWidth,"
                                      " window.outerHeight - window.innerHeight];")
        driver.set_window_size(width + inner[0], height + inner[1])
    except Exception as e:  # noqa: BLE001 - the browser is closed whatever went wrong
        quit_quietly(driver, lost=browser_lost(e))
        give_up_on(e, "Chromium's first page died",
                   "headless Chromium could not size its window")
    return driver


def new_driver(options: Any) -> Any:
    """A ChromeDriver session with `options` (the browser tests start theirs here too). Its calls
    time out after BROWSER_CALL_SECONDS, and ChromeDriver and its Chromium run in a process group
    of their own, so that kill_browser kills both; a start that fails leaves nothing running."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.remote.remote_connection import RemoteConnection

    RemoteConnection.set_timeout(BROWSER_CALL_SECONDS)
    service = Service(CHROMEDRIVER, popen_kw={"start_new_session": True})
    try:
        return webdriver.Chrome(service=service, options=options)
    except Exception:
        kill_browser(service)
        raise


def kill_browser(service: Any) -> None:
    """Kills ChromeDriver and the Chromium it started (their process group), hung or not."""
    process = getattr(service, "process", None)
    if process is None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:  # already gone
        pass
    process.wait()


def quit_quietly(driver: Any, lost: bool = False) -> None:
    """Closes the browser. A `lost` one is killed without quit(), which a hung browser would keep
    waiting; otherwise whatever quit() leaves running (or a dead browser ignored) is killed."""
    if not lost:
        try:
            driver.quit()
        except Exception:  # noqa: BLE001 - nothing more to do with a dead browser
            pass
    kill_browser(driver.service)


def first_line(error: BaseException) -> str:
    """The first line of a WebDriver message, without selenium's stack trace."""
    text = getattr(error, "msg", None) or str(error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


def browser_lost(error: BaseException) -> bool:
    """True for WebDriver errors that say the browser, not the page, failed, and for a call that
    timed out (BROWSER_CALL_SECONDS) or found ChromeDriver gone."""
    import urllib3
    from selenium.common.exceptions import InvalidSessionIdException, WebDriverException
    if isinstance(error, (InvalidSessionIdException, urllib3.exceptions.HTTPError, ConnectionError,
                          TimeoutError)):
        return True
    text = (getattr(error, "msg", None) or str(error)).lower()
    return isinstance(error, WebDriverException) and any(m in text for m in BROWSER_LOST_MESSAGES)


def give_up_on(error: BaseException, lost: str, refused: str) -> NoReturn:
    """A browser that went away raises BrowserLost ("LOST (message)"), to be retried; any other
    error exits 4 ("REFUSED: message")."""
    if browser_lost(error):
        raise BrowserLost(f"{lost} ({first_line(error) or type(error).__name__})") from None
    fail(4, f"{refused}: {first_line(error)}")


def open_page(driver: Any, page: Path) -> List[str]:
    """Loads the page, waits for its viewer; returns the run names."""
    driver.get(page.resolve().as_uri())
    deadline = time.monotonic() + 30
    while not driver.execute_script("return !!(window.replay && window.replay.ready)"):
        if time.monotonic() > deadline:
            fail(3, f"{page}: not a replay page (no viewer started within 30 s)")
        time.sleep(0.05)
    return [r["name"] for r in driver.execute_script("return window.replay.runs;")]


def show(driver: Any, run: int, instant: Optional[float], obstacles: str, ghosts: bool) -> None:
    """Selects the run and the frame nearest `instant` (None: keep the frame)."""
    driver.execute_script("window.replay.selectRun(arguments[0]);"
                          "window.replay.setObstacles(arguments[1]);"
                          "window.replay.setGhosts(arguments[2]);",
                          run, obstacles, ghosts)
    if instant is not None:
        driver.execute_script(
            "const r = window.replay, n = r.runs[r.run].frames; let best = 0;"
            "for (let f = 0; f < n; f++) {"
            "  if (Math.abs(r.time(f) - arguments[0]) < Math.abs(r.time(best) - arguments[0]))"
            "    best = f; }"
            "r.setFrame(best);", instant)


def save_atomically(out: Path, write: Any) -> None:
    """Calls write(temporary path) in OUT's folder, then renames it to OUT."""
    folder = out.resolve().parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".png", dir=folder)
    except OSError as e:
        fail(4, f"cannot write {out}: {e}")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, out)
    except OSError as e:
        fail(4, f"cannot write {out}: {e}")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def grid(driver: Any, runs: Sequence[int], names: Sequence[str], times: Sequence[float],
         obstacles: str, ghosts: bool) -> Any:
    """The 3D view of each run (rows) at each instant (columns), captioned, as one image."""
    try:
        from PIL import Image
    except ImportError as e:
        fail(4, f"python3-pil is needed for --times ({e}); {INSTALL_HINT}")
    # The caption is drawn by the page itself (an overlay in the view), so it has its fonts.
    driver.execute_script(
        "const c = document.createElement('div'); c.id = 'snapshot-caption';"
        "c.style.cssText = 'position:absolute;left:8px;top:6px;padding:2px 6px;font:600 15px "
        "system-ui,sans-serif;background:rgba(255,255,255,0.85);border-radius:3px';"
        "document.getElementById('view').appendChild(c);")
    tiles = []
    for run in runs:
        row = []
        for t in times:
            show(driver, run, t, obstacles, ghosts)
            driver.execute_script(
                "const r = window.replay, d = r.clearance();"
                "const what = Number.isFinite(d) ? `clearance ${d.toFixed(4)} m` : 'no pair';"
                "document.getElementById('snapshot-caption').textContent ="
                "  `${arguments[0]}, ${document.getElementById('time').textContent"
                "  .replace(/ \\(frame.*$/, '')}: ${what}`; r.render();", names[run])
            rect = driver.execute_script(
                "const r = document.getElementById('view').getBoundingClientRect();"
                "return [r.left, r.top, r.width, r.height];")
            left, top, width, height = (int(v) for v in rect)
            shot = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
            row.append(shot.crop((left, top, left + width, top + height)))
        tiles.append(row)
    w, h = tiles[0][0].size
    image = Image.new("RGB", (w * len(times), h * len(runs)), (255, 255, 255))
    for i, row in enumerate(tiles):
        for j, tile in enumerate(row):
            image.paste(tile, (j * w, i * h))
    return image


def main() -> None:
    """Parses the command line and writes the snapshot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path, help="the replay page (HTML)")
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--run", help="run name as shown in the page (default: the first; with "
                        "--times: every run)")
    parser.add_argument("--time", type=float, help="instant to show (nearest frame; default: 0)")
    parser.add_argument("--times", type=parse_times, metavar="T1,T2,...",
                        help="a grid of the 3D view: one row per run, one column per instant")
    parser.add_argument("--ghosts", action="store_true", help="show ghosted past poses")
    parser.add_argument("--obstacles", choices=("opaque", "transparent", "hidden"),
                        default="transparent", help="how obstacles are drawn")
    parser.add_argument("--quiet", action="store_true", help="no 'wrote: OUT' line on stdout")
    parser.add_argument("--size", type=parse_size, default=None,
                        help="window size WIDTHxHEIGHT (default 1100x620; with --times, "
                        "900x520, of which the side panel is 330 wide)")
    args = parser.parse_args()
    if args.time is not None and args.times is not None:
        parser.error("--time and --times: give one")
    if not args.page.is_file():
        fail(3, f"{args.page}: no such file")
    size = args.size or ((900, 520) if args.times else (1100, 620))

    for attempt in range(1, BROWSER_ATTEMPTS + 1):
        try:
            snapshot(args, size)
            break
        except BrowserLost as e:
            if attempt == BROWSER_ATTEMPTS:
                fail(4, f"headless Chromium failed {attempt} times in a row, last: {e}; "
                     f"{args.out} is not written")
            print(f"replay_screenshot: {e}; trying again in a new browser "
                  f"({attempt + 1} of {BROWSER_ATTEMPTS})", file=sys.stderr)
    if not args.quiet:
        print(f"wrote: {args.out}")


def snapshot(args: argparse.Namespace, size: Tuple[int, int]) -> None:
    """One browser: opens the page, renders, writes the PNG; raises BrowserLost if it dies."""
    driver = start_browser(*size)
    lost = False
    try:
        try:
            runs = open_page(driver, args.page)
            if args.run is not None and args.run not in runs:
                fail(3, f"{args.page}: no run '{args.run}' (runs: {', '.join(runs)})")
            if args.times is not None:
                rows = [runs.index(args.run)] if args.run is not None else list(range(len(runs)))
                image = grid(driver, rows, runs, args.times, args.obstacles, args.ghosts)
                write = lambda tmp: image.save(tmp, "PNG", optimize=True)  # noqa: E731
            else:
                show(driver, runs.index(args.run) if args.run is not None else 0, args.time,
                     args.obstacles, args.ghosts)
                png = driver.get_screenshot_as_png()
                write = lambda tmp: Path(tmp).write_bytes(png)  # noqa: E731
            problems = [e for e in driver.get_log("browser")
                        if e["level"] in ("SEVERE", "WARNING")]
        except Exception as e:  # noqa: BLE001 - WebDriver's errors sorted, the others raised
            from selenium.common.exceptions import WebDriverException
            lost = browser_lost(e)
            if not isinstance(e, WebDriverException) and not lost:
                raise
            give_up_on(e, "Chromium's page died",
                       f"{args.page}: headless Chromium refused the snapshot")
    finally:
        quit_quietly(driver, lost)
    # Written only once every tile is rendered, so a lost browser leaves no partial PNG.
    save_atomically(args.out, write)
    for p in problems:
        print(f"replay_screenshot: page console: {p['message']}", file=sys.stderr)


if __name__ == "__main__":
    main()
