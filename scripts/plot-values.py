#!/usr/bin/env python3
"""Plot results/values.csv as an SVG written by hand (standard library only).

Usage: scripts/plot-values.py [CSV] [SVG]   (default results/values.csv results/values.svg)

Four panels, one per capture rule (columns) and end rule (rows); in each, the value of
Kalah(m,n) (final margin, South minus North) against n, one line per pit count m. A case
without a value (not solved, or an open Kalah(6,6) case) leaves a gap in its line.
"""

import csv
import sys

COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#a6761d"]
CAPTURES = ["standard", "empty"]
ENDS = ["either", "mover"]
PW, PH = 330, 250  # panel plot area
ML, MT, GAP_X, GAP_Y = 60, 90, 70, 80  # margins and gaps


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "results/values.csv"
    dst = sys.argv[2] if len(sys.argv) > 2 else "results/values.svg"
    values = {}
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            if row["value"] != "":
                key = (row["capture"], row["end"], int(row["pits"]))
                values.setdefault(key, {})[int(row["seeds"])] = int(row["value"])
    if not values:
        sys.exit("plot-values.py: no values in %s" % src)
    lo = min(min(v.values()) for v in values.values())
    hi = max(max(v.values()) for v in values.values())
    step = 2 if hi - lo <= 12 else 4
    lo, hi = step * ((lo - 1) // step), -step * ((-hi - 1) // step)  # gridline bounds, a little room

    width = ML + 2 * PW + GAP_X + 140
    height = MT + 2 * PH + GAP_Y + 60
    out = []
    add = out.append
    add('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="Helvetica, Arial, sans-serif" font-size="13">' % (width, height, width, height))
    add('<rect width="100%" height="100%" fill="white"/>')
    add('<text x="%d" y="28" font-size="18" font-weight="bold">Value of Kalah(m,n): final margin '
        'South − North with perfect play</text>' % ML)
    add('<text x="%d" y="48" fill="#555">x: seeds per pit n; one line per pits a side m; a gap: '
        'no value (not solved, or open)</text>' % ML)

    for ci, cap in enumerate(CAPTURES):
        for ei, end in enumerate(ENDS):
            x0 = ML + ci * (PW + GAP_X)
            y0 = MT + ei * (PH + GAP_Y)

            def px(n):
                return x0 + (n - 1) * PW / 5.0

            def py(v):
                return y0 + (hi - v) * PH / float(hi - lo)

            add('<text x="%.1f" y="%d" font-weight="bold" text-anchor="middle">%s capture, end rule '
                '%s</text>' % (x0 + PW / 2, y0 - 10, cap, end))
            for v in range(lo, hi + 1, step):
                y = py(v)
                add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="1"/>'
                    % (x0, y, x0 + PW, y, "#888" if v == 0 else "#e4e4e4"))
                add('<text x="%d" y="%.1f" text-anchor="end" fill="#444">%s</text>'
                    % (x0 - 6, y + 4, "%+d" % v if v else "0"))
            for n in range(1, 7):
                x = px(n)
                add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#f0f0f0"/>' % (x, y0, x, y0 + PH))
                add('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">%d</text>' % (x, y0 + PH + 18, n))
            add('<text x="%.1f" y="%d" text-anchor="middle" fill="#444">seeds per pit n</text>'
                % (x0 + PW / 2, y0 + PH + 36))
            add('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>' % (x0, y0, PW, PH))
            for m in range(1, 7):
                pts = values.get((cap, end, m), {})
                color = COLORS[m - 1]
                run = []
                for n in range(1, 8):
                    if n in pts:
                        run.append((px(n), py(pts[n])))
                    elif run:
                        add('<polyline fill="none" stroke="%s" stroke-width="2.2" points="%s"/>'
                            % (color, " ".join("%.1f,%.1f" % p for p in run)))
                        run = []
                for n, v in sorted(pts.items()):
                    add('<circle cx="%.1f" cy="%.1f" r="3.2" fill="%s"><title>Kalah(%d,%d) %s %s: %+d</title>'
                        '</circle>' % (px(n), py(v), color, m, n, cap, end, v))

    lx = ML + 2 * PW + GAP_X + 20
    add('<text x="%d" y="%d" font-weight="bold">pits m</text>' % (lx, MT + 10))
    for m in range(1, 7):
        y = MT + 30 + 22 * (m - 1)
        add('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>' % (lx, y, lx + 28, y, COLORS[m - 1]))
        add('<text x="%d" y="%d">m = %d</text>' % (lx + 36, y + 4, m))
    add("</svg>")
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")
    print("wrote %s (%d lines of values)" % (dst, len(values)))


if __name__ == "__main__":
    main()
