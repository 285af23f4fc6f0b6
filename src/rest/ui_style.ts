/** The status page's style sheet (inline; the Content-Security-Policy allows it by hash). */
export const UI_STYLE = `
:root { color-scheme: light dark; --ok: #2e7d32; --warn: #b26a00; --bad: #c62828; --muted: #777; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1rem; }
header { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 0; display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; }
h2 .name { overflow-wrap: anywhere; }
.wrap { display: inline-block; min-width: 6rem; overflow-wrap: anywhere; }
table.sink .wrap { min-width: 0; }
td.num, td.phase, td.eta, td.lag, td.worker, .percent { white-space: nowrap; }
.muted { color: var(--muted); }
section.connector { border: 1px solid #8884; border-left-width: 6px; border-radius: 6px; padding: .8rem 1rem; margin-bottom: 1rem; }
section.health-FAILED { border-color: var(--bad); background: #c628280f; }
section.health-DEGRADED { border-color: var(--warn); background: #b26a000f; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin-top: .6rem; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #8883; vertical-align: top; }
th { font-weight: 600; font-size: .85rem; }
th[title] { text-decoration: underline dotted #8888; cursor: help; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.state, .health, .badge { white-space: nowrap; font-size: .8rem; font-weight: 600; padding: 0 .4rem; border-radius: 3px; color: #fff; background: var(--muted); }
.state.RUNNING { background: var(--ok); }
.state.PAUSED, .state.STOPPED, .state.RESTARTING, .state.UNASSIGNED, .health.DEGRADED { background: var(--warn); }
.state.FAILED, .health.FAILED, .badge.FAILED { background: var(--bad); }
.bad { color: var(--bad); font-weight: 600; }
progress { width: 6rem; }
.percent { font-size: .8rem; }
.chart { color: var(--ok); display: block; }
.chart-note { font-size: .75rem; color: var(--muted); white-space: nowrap; }
.warnings ul { margin: 0; padding-left: 1rem; color: var(--warn); }
.error { color: var(--bad); white-space: pre-wrap; max-width: 28rem; overflow-wrap: anywhere; }
.actions { margin: .4rem 0 0; display: flex; gap: .4rem; }
html:not(.js) .actions { display: none; }
#problem { color: var(--bad); }
#notice { color: var(--ok); }
form#login { margin: 1rem 0; }
`;
