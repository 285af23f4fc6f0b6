/**
 * A small inline SVG chart of a rate over the last 15 minutes (the page draws it itself: no script, no external
 * asset). The right edge is now; the left edge is 15 minutes ago, or the oldest sample when the daemon has been
 * up for less. The height is scaled to the highest rate shown, which the title and a note under the chart name.
 */
import { HISTORY_WINDOW_MS, type RatePoint } from "./ui_history.ts";
import { duration, esc, perSecond } from "./ui_format.ts";

const WIDTH = 150;
const HEIGHT = 30;

export function rateChart(points: readonly RatePoint[], unit: string, now: number, id: string): string {
  const from = Math.max(now - HISTORY_WINDOW_MS, Math.min(points[0]?.t ?? now, now - 1000));
  const highest = Math.max(0, ...points.map((p) => p.perSecond));
  const x = (t: number) => (WIDTH * Math.max(0, t - from)) / (now - from);
  const y = (v: number) => HEIGHT - 1 - (highest > 0 ? ((HEIGHT - 2) * v) / highest : 0);
  // One point (the live rate only) is drawn as a level line.
  const shown = points.length === 1 ? [{ t: from, perSecond: points[0].perSecond }, points[0]] : points;
  const coordinates = shown.map((p) => `${x(p.t).toFixed(1)},${y(p.perSecond).toFixed(1)}`);
  const span = duration((now - from) / 1000);
  const title = points.length === 0
    ? "no samples yet"
    : `last ${span}: highest ${perSecond(highest)} ${unit}/s, now ${
      perSecond(points.at(-1)!.perSecond)
    } ${unit}/s`;
  const area = coordinates.length > 1
    ? `<polygon fill="currentColor" fill-opacity="0.15" stroke="none" points="${
      x(shown[0].t).toFixed(1)
    },${HEIGHT} ${coordinates.join(" ")} ${x(shown.at(-1)!.t).toFixed(1)},${HEIGHT}"/>` +
      `<polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${coordinates.join(" ")}"/>`
    : "";
  return `<svg class="chart" data-series="${esc(id)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" ` +
    `height="${HEIGHT}" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title>` +
    `<line x1="0" y1="${HEIGHT - 0.5}" x2="${WIDTH}" y2="${
      HEIGHT - 0.5
    }" stroke="currentColor" stroke-opacity="0.3"/>` +
    `${area}</svg>` +
    // The scale in words: the chart has no axis, and curl or a text browser sees no chart at all.
    (points.length === 0 ? "" : `<span class="chart-note">peak ${perSecond(highest)}/s</span>`);
}
