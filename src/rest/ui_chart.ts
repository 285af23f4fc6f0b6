/**
 * A small inline SVG line chart of a rate over the last 15 minutes (the page draws it itself: no script, no
 * external asset). The right edge is now; the height is scaled to the window's highest rate, named in its title.
 */
import { HISTORY_WINDOW_MS, type RatePoint } from "./ui_history.ts";
import { esc, perSecond } from "./ui_format.ts";

const WIDTH = 150;
const HEIGHT = 30;

export function rateChart(points: readonly RatePoint[], unit: string, now: number, id: string): string {
  const highest = Math.max(0, ...points.map((p) => p.perSecond));
  const x = (t: number) => (WIDTH * Math.max(0, t - (now - HISTORY_WINDOW_MS))) / HISTORY_WINDOW_MS;
  const y = (v: number) => HEIGHT - 1 - (highest > 0 ? ((HEIGHT - 2) * v) / highest : 0);
  const coordinates = points.map((p) => `${x(p.t).toFixed(1)},${y(p.perSecond).toFixed(1)}`).join(" ");
  const title = points.length === 0
    ? "no samples yet"
    : `last 15 min, highest ${perSecond(highest)} ${unit}/s, now ${
      perSecond(points.at(-1)!.perSecond)
    } ${unit}/s`;
  return `<svg class="chart" data-series="${esc(id)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" ` +
    `height="${HEIGHT}" role="img" aria-label="${esc(title)}"><title>${esc(title)}</title>` +
    `<line x1="0" y1="${HEIGHT - 0.5}" x2="${WIDTH}" y2="${
      HEIGHT - 0.5
    }" stroke="currentColor" stroke-opacity="0.3"/>` +
    (points.length > 0
      ? `<polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${coordinates}"/>`
      : "") +
    `</svg>`;
}
