#!/usr/bin/env python3
"""hlo-opt's graphs rendered by the real tools: Graphviz's dot turns the
--emit=dot file into SVG with the expected clusters, and a headless Chromium
opens the --emit=html page (before/after panels) and must run its script
with no errors and find the expected clusters in the DOM. Bad graph flags
exit 2 with a message.

usage: graph_render_test.py HLO_OPT MODULE

The tools come from Debian (graphviz, chromium-headless-shell or chromium;
scripts/setup.sh installs them). A tool that is not installed is reported
as SKIPPED on stdout and that part is not run; nothing else is skipped.
Without Graphviz, --emit=html lays the page out itself; that page is opened
too (HLOC_DOT naming no file stands for such a machine).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          **kw)


def svg_clusters(svg_text):
    root = ET.fromstring(svg_text)
    return [g for g in root.iter(SVG + "g") if g.get("class") == "cluster"]


def cluster_titles(clusters):
    titles = []
    for g in clusters:
        texts = [t.text or "" for t in g.iter(SVG + "text")]
        titles.append(texts[0] if texts else "")
    return titles


def test_dot(hlo_opt, module, tmp):
    dot = shutil.which("dot")
    if dot is None:
        print("SKIPPED: Graphviz's dot is not installed (apt-get install "
              "graphviz); the dot rendering test did not run")
        return
    cases = [
        # (flags, clusters: fusions + while condition and body)
        (["--platform=cuda"], 6, "#4 row_reduction_fusion (kCustom)"),
        (["--platform=cpu"], 6, None),
        (["--passes=instruction-fusion"], 9, None),
        ([], 2, "loop body: body"),
        (["--platform=cuda", "--graph-max-nodes=10"], 0, None),
    ]
    for flags, want, title in cases:
        out = os.path.join(tmp, "g.dot")
        r = run([hlo_opt, module, "--emit=dot", "-o", out] + flags)
        check(r.returncode == 0, f"hlo-opt --emit=dot {' '.join(flags)}: "
              f"exit 0 ({r.stderr.strip()})")
        if r.returncode != 0:
            continue
        svg = run([dot, "-Tsvg", out])
        check(svg.returncode == 0 and "<svg" in svg.stdout,
              f"dot -Tsvg renders it ({svg.stderr.strip()})")
        if svg.returncode != 0:
            continue
        clusters = svg_clusters(svg.stdout)
        check(len(clusters) == want,
              f"{' '.join(flags) or 'as read'}: {len(clusters)} clusters in "
              f"the SVG, want {want}")
        if title is not None:
            titles = cluster_titles(clusters)
            check(title in titles, f"a cluster titled {title!r} in {titles}")
    # Kernels numbered in launch order in the cluster labels.
    r = run([hlo_opt, module, "--emit=dot", "--platform=cuda"])
    numbers = [int(n) for n in re.findall(r'label="#(\d+) ', r.stdout)]
    check(sorted(numbers) == [1, 2, 3, 4],
          f"kernels #1..#4 labelled once each: {numbers}")


def find_browser():
    for name in ("chromium-headless-shell", "chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def open_in_browser(browser, page, tmp, what):
    """Opens `page` headless; checks the script ran with no errors and
    returns <body>'s attributes and the DOM."""
    profile = os.path.join(tmp, "profile")
    r = run([browser, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run",
             f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
             "--virtual-time-budget=2000", "--dump-dom",
             "file://" + os.path.abspath(page.split("#")[0]) +
             ("#" + page.split("#")[1] if "#" in page else "")])
    check(r.returncode == 0, f"{what}: {os.path.basename(browser)} exit 0")
    body = re.search(r"<body([^>]*)>", r.stdout)
    check(body is not None, f"{what}: the browser dumped the page's DOM")
    if body is None:
        print(r.stderr[-3000:])
        return {}, ""
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    console_errors = [l for l in r.stderr.splitlines()
                      if "CONSOLE" in l and ("Uncaught" in l or "Error" in l)]
    check(not console_errors, f"{what}: no script errors in the console: "
          f"{console_errors}")
    check("data-script-errors" not in attrs,
          f"{what}: no uncaught errors: {attrs.get('data-script-errors')}")
    check(attrs.get("data-rendered") == "yes", f"{what}: the script ran")
    return attrs, r.stdout


def test_html(hlo_opt, module, tmp):
    browser = find_browser()
    if browser is None:
        print("SKIPPED: no headless Chromium installed (apt-get install "
              "chromium-headless-shell); the pages were not opened")
    # With Graphviz (if installed), then with hloc's own layout (HLOC_DOT
    # naming no file stands for a machine without Graphviz).
    layouts = [("graphviz", None), ("layered fallback", "/nonexistent/dot")]
    if shutil.which("dot") is None:
        print("SKIPPED: Graphviz's dot is not installed; only the fallback "
              "layout's page is checked")
        layouts = layouts[1:]
    for what, dot in layouts:
        page = os.path.join(tmp, "graph.html")
        env = dict(os.environ)
        if dot is not None:
            env["HLOC_DOT"] = dot
        r = run([hlo_opt, module, "--platform=cuda", "--emit=html",
                 "--graph-compare", "-o", page], env=env)
        check(r.returncode == 0, f"{what}: hlo-opt --emit=html "
              f"--graph-compare: exit 0 ({r.stderr.strip()})")
        if r.returncode != 0:
            continue
        text = open(page, encoding="utf-8").read()
        check(not re.search(r'(src|href)="(https?:)?//', text),
              f"{what}: the page loads nothing from the network")
        check(("Graphviz's dot was not found" in text) == (dot is not None),
              f"{what}: the page says how it was laid out")
        if browser is None:
            continue
        attrs, dom = open_in_browser(browser, page, tmp, what)
        # Before: the loop's condition and body; after: also 4 fusions.
        check(attrs.get("data-expected-clusters") == "8",
              f"{what}: the writer drew 2 + 6 clusters: {attrs}")
        check(attrs.get("data-clusters") == "8",
              f"{what}: the browser shows 8 clusters: {attrs}")
        check(dom.count('class="panel"') == 2,
              f"{what}: two panels side by side")
        check(">#4 row_reduction_fusion (kCustom)<" in dom,
              f"{what}: the last kernel's cluster is labelled #4")

        # Folded to 10 nodes, the page carries the unfolded drawing behind
        # its expand buttons; #expand opens them all.
        r = run([hlo_opt, module, "--platform=cuda", "--emit=html",
                 "--graph-compare", "--graph-max-nodes=10", "-o", page],
                env=env)
        check(r.returncode == 0, f"{what}: folded page: exit 0")
        attrs, dom = open_in_browser(browser, page, tmp, f"{what}, folded")
        check(attrs.get("data-clusters") == "0" and
              attrs.get("data-expected-clusters") == "0",
              f"{what}, folded: no clusters shown: {attrs}")
        check(dom.count('<button class="expand"') == 2,
              f"{what}, folded: an expand button per panel")
        attrs, dom = open_in_browser(browser, page + "#expand", tmp,
                                     f"{what}, expanded")
        check(attrs.get("data-expected-clusters-expanded") == "8" and
              attrs.get("data-clusters") == "8",
              f"{what}, expanded: all 8 clusters shown: {attrs}")


def test_bad_flags(hlo_opt, module):
    for flags, message in [
        (["--emit=svg"], "--emit must be"),
        (["--emit=dot", "--graph-max-nodes=-3"], "--graph-max-nodes must be"),
        (["--emit=dot", "--graph-max-nodes=many"], "--graph-max-nodes must be"),
        (["--graph-max-nodes=5"], "go with --emit=dot"),
        (["--emit=html", "--graph-compare"], "--graph-compare needs"),
        (["--emit=dot", "--graph-compare", "--platform=cuda"],
         "--graph-compare needs"),
        (["--emit=dot", "--platform=cuda", "--stage=ptx"], "--stage=hlo"),
    ]:
        r = run([hlo_opt, module] + flags)
        check(r.returncode == 2 and message in r.stderr and not r.stdout,
              f"{' '.join(flags)}: exit 2 saying {message!r} "
              f"(got {r.returncode}: {r.stderr.strip()})")


def main(argv):
    hlo_opt, module = argv[1], argv[2]
    with tempfile.TemporaryDirectory(
            dir=os.environ.get("TEST_TMPDIR")) as tmp:
        test_dot(hlo_opt, module, tmp)
        test_html(hlo_opt, module, tmp)
        test_bad_flags(hlo_opt, module)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
