"""A small SVG bar-chart writer for the benchmark tables (no matplotlib:
the GPU machine and CI need nothing beyond Python's standard library).

One chart: a title, a subtitle (date and machine), a legend, then one group
per case with one horizontal bar per series (hloc, the copy bound, each
peer), the value written at the bar's end. A missing value is written as
"n/a" with no bar. With shared_scale every group uses one axis (same unit
everywhere); without, each group is scaled to its own largest value (mixed
units, or times that differ by orders of magnitude).

Every bar is <rect class="bar" data-group=... data-series=...
data-value=...> so tests and scripts can read the chart back.
(tools/bench_plot.cc writes the same layout for hlo-bench, in C++.)
"""

from xml.sax.saxutils import escape, quoteattr

# The same contender has the same color in every chart (matched by the
# start of the series name); others take the palette in order.
KNOWN = [("hloc Run", "#64b5f6"), ("hloc", "#1565c0"),
         ("copy", "#9e9e9e"), ("XLA", "#ef6c00"), ("torch", "#2e7d32"),
         ("cuBLAS", "#6a1b9a"), ("OpenBLAS", "#6a1b9a")]
PALETTE = ["#c62828", "#00838f", "#795548", "#ad1457"]


def series_color(name, index):
    for prefix, color in KNOWN:
        if name.startswith(prefix):
            return color
    return PALETTE[index % len(PALETTE)]

WIDTH = 900
LABEL_W = 230
BAR_W = 520
BAR_H = 14
BAR_GAP = 3
GROUP_GAP = 14


def _fmt(value):
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def bar_svg(title, subtitle, groups, shared_scale=True, note=""):
    """groups: [{"name": str, "unit": str, "bars": [(series, value|None)]}]
    -> the SVG document as text."""
    series = []
    for g in groups:
        for s, _ in g["bars"]:
            if s not in series:
                series.append(s)
    color = {s: series_color(s, i) for i, s in enumerate(series)}
    everything = [v for g in groups for _, v in g["bars"] if v]
    top = max(everything) if everything else 1.0

    out = []
    y = 64
    # Legend.
    x = 10
    legend = []
    for s in series:
        legend.append(f'<rect x="{x}" y="{y - 10}" width="10" height="10" '
                      f'fill="{color[s]}"/><text x="{x + 14}" y="{y}">'
                      f'{escape(s)}</text>')
        x += 24 + 7 * len(s)
    out += legend
    y += 16
    for g in groups:
        values = [v for _, v in g["bars"] if v]
        scale_max = top if shared_scale else (max(values) if values else 1.0)
        out.append(f'<text class="group" x="10" y="{y + BAR_H - 3}" '
                   f'font-weight="bold">{escape(g["name"])}</text>')
        for s, v in g["bars"]:
            out.append(f'<text x="{LABEL_W - 6}" y="{y + BAR_H - 3}" '
                       f'text-anchor="end" fill="#555">{escape(s)}</text>')
            if v is None or v <= 0:
                out.append(f'<text class="na" x="{LABEL_W + 4}" '
                           f'y="{y + BAR_H - 3}" fill="#999">n/a</text>')
            else:
                w = max(1.0, BAR_W * v / scale_max)
                text = f"{_fmt(v)} {g['unit']}"
                out.append(
                    f'<rect class="bar" data-group={quoteattr(g["name"])} '
                    f'data-series={quoteattr(s)} data-value="{v:g}" '
                    f'x="{LABEL_W}" y="{y}" width="{w:.1f}" '
                    f'height="{BAR_H}" fill="{color[s]}"><title>'
                    f'{escape(g["name"])}, {escape(s)}: {escape(text)}'
                    f'</title></rect>')
                out.append(f'<text x="{LABEL_W + w + 4:.1f}" '
                           f'y="{y + BAR_H - 3}">{escape(text)}</text>')
            y += BAR_H + BAR_GAP
        y += GROUP_GAP
    if note:
        out.append(f'<text x="10" y="{y + 4}" fill="#555">{escape(note)}'
                   '</text>')
        y += 16
    height = y + 10
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="22" font-size="15" font-weight="bold">'
        f'{escape(title)}</text>',
        f'<text x="10" y="40" fill="#444">{escape(subtitle)}</text>',
    ]
    return "\n".join(head + out + ["</svg>"]) + "\n"
