#!/usr/bin/python3
"""PNG snapshots of a --html replay page (issue 14), rendered by headless Chromium.

Usage: /usr/bin/python3 scripts/replay_screenshot.py PAGE OUT.png [--run NAME] [--time T]
       [--ghosts] [--obstacles opaque|transparent|hidden] [--size WIDTHxHEIGHT]

Opens PAGE (written by gjk-clearance, gjk-plan or four_dof_pyramids with --html), selects the
run and the instant nearest T, and saves the browser window as OUT.png. Needs Debian's chromium,
chromium-driver and python3-selenium (scripts/install-deps.sh).

Exit status: 0 written; 2 usage error; 3 the page cannot be read or is not a replay page (or the
run is unknown); 4 the browser could not start or the PNG could not be written.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def fail(code: int, message: str) -> None:
    """Prints `message` on stderr and exits with `code`."""
    print(f"replay_screenshot: {message}", file=sys.stderr)
    sys.exit(code)


def parse_size(text: str) -> tuple[int, int]:
    """WIDTHxHEIGHT in pixels, each 200..4000."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got '{text}'") from None
    if not (200 <= w <= 4000 and 200 <= h <= 4000):
        raise argparse.ArgumentTypeError(f"width and height must be 200..4000, got '{text}'")
    return w, h


def start_browser(width: int, height: int) -> Any:
    """Headless Chromium with software WebGL, the page's console captured."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        fail(4, f"python3-selenium is needed ({e}); run scripts/install-deps.sh")
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", f"--window-size={width},{height}",
                "--force-device-scale-factor=1", "--use-angle=swiftshader",
                "--enable-unsafe-swiftshader", "--hide-scrollbars"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    except Exception as e:  # noqa: BLE001 - any start failure is reported the same way
        fail(4, f"cannot start headless Chromium ({CHROMIUM}, {CHROMEDRIVER}): {e}")
    # The window's inner size, so the screenshot has the size asked for.
    inner = driver.execute_script("return [window.outerWidth - window.innerWidth,"
                                  " window.outerHeight - window.innerHeight];")
    driver.set_window_size(width + inner[0], height + inner[1])
    return driver


def main() -> None:
    """Parses the command line and writes the snapshot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path, help="the replay page (HTML)")
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--run", help="run name as shown in the page (default: the first)")
    parser.add_argument("--time", type=float, help="instant to show (nearest frame; default: 0)")
    parser.add_argument("--ghosts", action="store_true", help="show ghosted past poses")
    parser.add_argument("--obstacles", choices=("opaque", "transparent", "hidden"),
                        default="transparent", help="how obstacles are drawn")
    parser.add_argument("--size", type=parse_size, default=(1100, 620),
                        help="window size WIDTHxHEIGHT (default 1100x620)")
    args = parser.parse_args()
    if not args.page.is_file():
        fail(3, f"{args.page}: no such file")

    driver = start_browser(*args.size)
    try:
        driver.get(args.page.resolve().as_uri())
        deadline = time.monotonic() + 30
        while not driver.execute_script("return !!(window.replay && window.replay.ready)"):
            if time.monotonic() > deadline:
                fail(3, f"{args.page}: not a replay page (no viewer started within 30 s)")
            time.sleep(0.05)
        runs = [r["name"] for r in driver.execute_script("return window.replay.runs;")]
        if args.run is not None and args.run not in runs:
            fail(3, f"{args.page}: no run '{args.run}' (runs: {', '.join(runs)})")
        run = runs.index(args.run) if args.run is not None else 0
        driver.execute_script("window.replay.selectRun(arguments[0]);"
                              "window.replay.setObstacles(arguments[1]);"
                              "window.replay.setGhosts(arguments[2]);",
                              run, args.obstacles, args.ghosts)
        if args.time is not None:
            driver.execute_script(
                "const r = window.replay, n = r.runs[r.run].frames; let best = 0;"
                "for (let f = 0; f < n; f++) {"
                "  if (Math.abs(r.time(f) - arguments[0]) < Math.abs(r.time(best) - arguments[0]))"
                "    best = f; }"
                "r.setFrame(best);", args.time)
        try:
            ok = driver.save_screenshot(str(args.out))
        except OSError as e:
            fail(4, f"cannot write {args.out}: {e}")
        if not ok:
            fail(4, f"cannot write {args.out}")
        problems = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        for p in problems:
            print(f"replay_screenshot: page console: {p['message']}", file=sys.stderr)
    finally:
        driver.quit()
    print(f"wrote: {args.out}")


if __name__ == "__main__":
    main()
