"""The report as a headless Chromium lays it out: what a reader at 1400 px would see, measured.

``probe(page, svgs)`` loads a copy of ``page`` (an HTML file) with each SVG figure inlined beside it
and a script appended that measures, after layout:

* every ``<math>`` element: parsed as MathML (a ``MathMLElement``), laid out with a non-empty box, no
  ``<merror>`` inside, and no LaTeX left over (a backslash command anywhere, or ``^ _ { }`` inside an
  identifier, number or text token — what a garbled statement shows; a set's braces and an accent,
  which are operators, are legal);
* every ``<figure>`` image: decoded (natural width > 0) and shown at a readable width (≥ ``MIN_WIDTH``
  px, or its natural width when smaller) without overflowing its column;
* every inlined SVG: each legend box (matplotlib's ``g#legend_N``) inside the figure's own box;
* the page: no horizontal overflow at the window's width.

The browser is Chromium's ``--dump-dom`` (the DOM after the script ran), so no driver package is
needed; ``BROWSER`` is whichever of ``chromium`` / ``chromium-browser`` / ``google-chrome`` is on
PATH (``.ci/run`` installs Debian's ``chromium``).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
WIDTH = 1400
MIN_WIDTH = 600
#: a guard against a hung browser, not a performance limit: a page takes seconds, even on a loaded machine
HANG = 1800

SCRIPT = r"""
<script>
window.addEventListener('load', () => {
  const out = {math: [], images: [], legends: [], overflow: 0, counts: {}};
  const maths = [...document.querySelectorAll('math')];
  out.counts.math = maths.length;
  for (const m of maths) {
    const r = m.getBoundingClientRect(), text = m.textContent;
    const why = [];
    if (!(m instanceof MathMLElement)) why.push('not parsed as MathML');
    if (r.width <= 0 || r.height <= 0) why.push('empty box');
    if (m.querySelector('merror')) why.push('merror');
    const tokens = [...m.querySelectorAll('mi, mn, mtext, ms')].map(e => e.textContent).join(' ');
    if (/\\[A-Za-z]+/.test(text) || /[\^_{}]/.test(tokens)) why.push('LaTeX left in the text');
    if (why.length) out.math.push({why: why.join(', '), text: text.slice(0, 120)});
  }
  const imgs = [...document.querySelectorAll('figure img')];
  out.counts.images = imgs.length;
  for (const im of imgs) {
    const r = im.getBoundingClientRect(), col = im.closest('figure').parentElement.getBoundingClientRect();
    const why = [];
    if (!im.complete || im.naturalWidth === 0) why.push('not decoded');
    if (r.width < Math.min(%(min_width)d, im.naturalWidth) - 0.5)
      why.push('shown ' + Math.round(r.width) + ' px wide');
    if (r.right > col.right + 0.5) why.push('overflows its column');
    if (why.length) out.images.push({why: why.join(', '), alt: im.alt.slice(0, 80)});
  }
  const svgs = [...document.querySelectorAll('#probe-svgs > div')];
  out.counts.svgs = svgs.length;
  out.counts.legends = 0;
  out.counts.per_svg = {};
  for (const d of svgs) {
    const s = d.querySelector('svg').getBoundingClientRect();
    out.counts.per_svg[d.dataset.name] = d.querySelectorAll('g[id^="legend"]').length;
    for (const g of d.querySelectorAll('g[id^="legend"]')) {
      out.counts.legends += 1;
      const r = g.getBoundingClientRect();
      const box = [r.left - s.left, r.top - s.top, r.right - s.left, r.bottom - s.top];
      if (box[0] < -0.5 || box[1] < -0.5 || box[2] > s.width + 0.5 || box[3] > s.height + 0.5)
        out.legends.push({figure: d.dataset.name, legend: g.id, box: box.map(Math.round),
                          size: [Math.round(s.width), Math.round(s.height)]});
    }
  }
  const sv = document.getElementById('probe-svgs');
  if (sv) sv.remove();
  out.overflow = Math.max(0, document.documentElement.scrollWidth - window.innerWidth);
  const pre = document.createElement('pre');
  pre.id = 'probe-result';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def probe(page: Path, svgs: list[Path] = ()) -> dict:
    """Lay ``page`` out in headless Chromium with ``svgs`` inlined; return the measurements (module doc)."""
    if BROWSER is None:
        raise RuntimeError("no Chromium on PATH (apt-get install chromium)")
    text = page.read_text(encoding="utf-8")
    inlined = "".join(
        f'<div data-name="{html.escape(p.name)}">{_svg_body(p)}</div>' for p in svgs)
    extra = f'<div id="probe-svgs">{inlined}</div>' + SCRIPT % {"min_width": MIN_WIDTH}
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(page.parent) / f".probe-{Path(tmp).name}.html"
        copy.write_text(text.replace("</body>", extra + "</body>", 1), encoding="utf-8")
        try:
            done = subprocess.run(
                [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 f"--user-data-dir={tmp}", f"--window-size={WIDTH},1000", "--virtual-time-budget=10000",
                 "--dump-dom", copy.as_uri()],
                capture_output=True, text=True, check=False, timeout=HANG)
        finally:
            copy.unlink()
    m = re.search(r'<pre id="probe-result">(.*?)</pre>', done.stdout, re.S)
    if m is None:
        raise RuntimeError(f"the probe did not run (exit {done.returncode}): {done.stderr[-2000:]}")
    return json.loads(html.unescape(m.group(1)))


def _svg_body(p: Path) -> str:
    """The ``<svg>`` element of a file (its XML prolog and DOCTYPE dropped: HTML inlines the element)."""
    text = p.read_text(encoding="utf-8")
    return text[text.index("<svg"):]
