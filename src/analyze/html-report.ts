import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { gzipSync } from "node:zlib";
import { OUTCOMES, type TrialRecord } from "../run/trial-record.js";
import { pct, reportTables } from "./format-tables.js";
import { type ChartSpec, renderChartSvg, reportCharts, taskViewerHref } from "./report-charts.js";
import type { Report } from "./report-schema.js";
import { TRANSCRIPT_VIEWER_SCRIPT } from "./transcript-viewer-script.js";
import { explainTranscript } from "./trial-evidence.js";

/** A trial as the page's viewer knows it, with the run directory it came from. */
export interface ViewerTrial {
  record: TrialRecord;
  /** Index into `HtmlReportOptions.runs`. */
  run: number;
}

export interface HtmlReportOptions {
  /** Run directories, in the order `ViewerTrial.run` indexes them. */
  runs: string[];
  /**
   * URL prefix per run under which transcripts are fetched (`apiflow view` serves `/runs/<i>/`); by
   * default a path relative to the page, so a page written inside the run directory links to its files.
   */
  transcriptBases?: string[];
  /** Embed transcripts (gzip, base64) when they add up to at most this many bytes; 0 never embeds. */
  embedLimitBytes?: number;
}

/** Default embedding budget: a sample-sized run opens offline from one file; the full set does not bloat it. */
export const DEFAULT_EMBED_LIMIT_BYTES = 32 * 1024 * 1024;

const esc = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
/** JSON safe inside a `<script>` element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replaceAll("<", "\\u003c");

function transcriptFile(runDir: string, path: string): string {
  return isAbsolute(path) ? path : join(runDir, path);
}

/**
 * The viewer's trial index: small integer rows referencing shared string tables (56k trials ≈
 * 1–2 MB): agent, task, epoch, outcome, transcript path, run.
 */
function trialIndex(trials: readonly ViewerTrial[], opts: HtmlReportOptions) {
  const agents = [...new Set(trials.map((t) => t.record.agent))].sort();
  const tasks = [...new Set(trials.map((t) => t.record.task_id))].sort();
  const agentIx = new Map(agents.map((a, i) => [a, i]));
  const taskIx = new Map(tasks.map((a, i) => [a, i]));
  const outcomeIx = new Map(OUTCOMES.map((o, i) => [o, i]));
  const paths: string[] = [];
  const rows = trials.map((t) => {
    const r = t.record;
    let p: number | null = null;
    if (r.transcript) {
      p = paths.length;
      paths.push(r.transcript);
    }
    return [agentIx.get(r.agent)!, taskIx.get(r.task_id)!, r.epoch, outcomeIx.get(r.outcome)!, p, t.run];
  });
  const bases = opts.transcriptBases ?? opts.runs.map((d) => `${d.replace(/\/+$/, "")}/`);
  return { agents, tasks, paths, bases, rows };
}

/** One chart as a figure: its title and caption, then its SVG. */
function chartFigure(c: ChartSpec, svg: string): string {
  return `<figure class="chart" data-chart="${c.id}">
<figcaption><h2>${esc(c.title)}</h2><p>${esc(c.caption)}</p></figcaption>
${svg}
</figure>`;
}

/**
 * The self-contained HTML report: every chart as inline SVG rendered at build time, the tables,
 * and the lazy transcript viewer. No script or style is loaded from anywhere; it works offline.
 *
 * @example writeFileSync("report.html", await buildHtmlReport(report, trials, { runs: ["runs/a"] }));
 */
export async function buildHtmlReport(
  report: Report,
  trials: readonly ViewerTrial[],
  opts: HtmlReportOptions,
): Promise<string> {
  const charts = reportCharts(report);
  const svgs = await Promise.all(charts.map((c) => renderChartSvg(c.spec)));

  const { agents, tasks, paths, bases, rows } = trialIndex(trials, opts);

  // Embed only when the whole set fits the budget, so a page never carries half of a large run.
  const limit = opts.embedLimitBytes ?? DEFAULT_EMBED_LIMIT_BYTES;
  let embedded = "";
  if (limit > 0) {
    let total = 0;
    const files: Array<{ i: number; file: string }> = [];
    for (const [i, t] of trials.entries()) {
      if (!t.record.transcript) continue;
      const file = transcriptFile(opts.runs[t.run]!, t.record.transcript);
      try {
        total += statSync(file).size;
      } catch {
        continue;
      }
      if (total > limit) break;
      files.push({ i, file });
    }
    if (total <= limit) {
      embedded = files
        .map(({ i, file }) => {
          const tx = `<script type="application/gzip-base64" id="tx-${i}">${gzipSync(readFileSync(file)).toString("base64")}</script>`;
          // The verdict's evidence, from the stored event log beside the transcript (when there is one).
          const ex = explainTranscript(file);
          return ex ? `${tx}\n<script type="application/json" id="ev-${i}">${scriptJson(ex)}</script>` : tx;
        })
        .join("\n");
    }
  }

  const figures = charts.map((c, i) => chartFigure(c, svgs[i] as string)).join("\n");
  const tables = reportTables(report)
    .map(
      (
        t,
      ) => `<section class="table"><h2>${esc(t.title)}</h2>${t.note ? `<p class="note">${esc(t.note)}</p>` : ""}<table>
<thead><tr>${t.header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead>
<tbody>${t.rows.map((r) => `<tr>${r.map((c, i) => `<td${t.right?.includes(i) ? ' class="num"' : ""}>${i === t.taskColumn ? `<a href="${esc(taskViewerHref(c))}">${esc(c)}</a>` : esc(c)}</td>`).join("")}</tr>`).join("\n")}</tbody>
</table></section>`,
    )
    .join("\n");

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>APIFlow-Bench report</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1100px; padding: 1rem 2rem; color: #111827; }
h1 { margin-bottom: 0.2rem; } h2 { font-size: 1.05rem; margin: 0.2rem 0; }
.lede { color: #4b5563; margin-top: 0; }
.kpis { display: flex; gap: 1.5rem; flex-wrap: wrap; margin: 1rem 0; }
.kpis div { background: #f3f4f6; padding: 0.5rem 0.9rem; border-radius: 6px; } .kpis b { display: block; font-size: 1.3rem; }
figure.chart { margin: 1.5rem 0; overflow-x: auto; } figcaption p { color: #4b5563; margin: 0 0 0.5rem; }
table { border-collapse: collapse; font-size: 12.5px; margin-bottom: 1rem; }
th, td { padding: 2px 8px; border-bottom: 1px solid #e5e7eb; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
#viewer { display: grid; grid-template-columns: 320px 1fr; gap: 1rem; align-items: start; }
#viewer .filters { display: flex; flex-direction: column; gap: 4px; margin-bottom: 6px; }
#trial-list { list-style: none; padding: 0; margin: 0; max-height: 70vh; overflow-y: auto; border: 1px solid #e5e7eb; }
button.trial { display: grid; grid-template-columns: 1fr auto; width: 100%; text-align: left; border: 0; border-bottom: 1px solid #f3f4f6; background: none; padding: 3px 6px; cursor: pointer; font: inherit; font-size: 12px; }
button.trial:hover { background: #eef2ff; } button.trial .task { grid-column: 1; color: #4b5563; } button.trial .outcome { grid-row: 1 / span 2; grid-column: 2; align-self: center; }
button.trial.pass .outcome { color: #15803d; } button.trial.fail .outcome, button.trial.abstained .outcome { color: #b91c1c; }
#transcript { min-height: 200px; max-height: 85vh; overflow-y: auto; border: 1px solid #e5e7eb; padding: 0.5rem 1rem; overflow-x: auto; }
ol.messages { padding-left: 1.2rem; } li.msg { margin-bottom: 0.6rem; } .role { font-weight: 600; font-size: 12px; color: #374151; }
li.msg pre { white-space: pre-wrap; word-break: break-word; background: #f9fafb; padding: 4px 6px; margin: 2px 0; font-size: 12px; }
li.msg.user pre { background: #eff6ff; } li.msg.tool pre { background: #f0fdf4; } pre.call { background: #fefce8 !important; } .error { color: #b91c1c; }
tr.bad td { color: #b91c1c; }
.tx-body { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; align-items: start; }
.evidence { font-size: 12px; position: sticky; top: 0; } .evidence li { margin-bottom: 0.4rem; } .evidence ul { padding-left: 1rem; margin: 2px 0; color: #374151; }
.evidence .ok { color: #15803d; } .evidence .bad { color: #b91c1c; }
p.warning { background: #fef3c7; border-left: 4px solid #d97706; padding: 0.4rem 0.8rem; } p.note { color: #4b5563; margin: 0 0 0.4rem; }
figure.chart a { cursor: pointer; }
</style>
</head>
<body>
<h1>APIFlow-Bench report</h1>
<p class="lede">Bank ${esc(report.bank_hashes.join(", ") || "—")} · ${report.runs.length} run(s) · denominators are scored trials; ${Math.round(report.interval.level * 100)}% intervals: ${esc(report.interval.method)}, ${report.interval.clusters} worlds.</p>
${report.interval.warning ? `<p class="warning" id="interval-warning">Warning: ${esc(report.interval.warning)}.</p>` : ""}
<div class="kpis">
<div><b>${report.trials.total.toLocaleString("en-US")}</b>trials</div>
<div><b>${report.trials.scored.toLocaleString("en-US")}</b>scored</div>
<div><b>${report.trials.unscored.toLocaleString("en-US")}</b>unscored</div>
<div><b>${Object.keys(report.models).length}</b>models</div>
<div><b>${pct(report.slices.solo.pass_rate)}</b>solo pass rate</div>
<div><b>${pct(report.slices.chain.pass_rate)}</b>chain pass rate (clean ${pct(report.clean.chain.pass_rate)})</div>
<div><b>${report.screen.flagged_cells.length}</b>chain cells flagged by the screen</div>
</div>
${figures}
${tables}
<section id="viewer-section">
<h2>Transcripts</h2>
<div id="viewer">
<div>
<div class="filters">
<select id="filter-model"><option value="">all models</option></select>
<select id="filter-outcome"><option value="">all outcomes</option></select>
<input id="filter-task" type="search" placeholder="task id contains…">
<small id="trial-count"></small>
</div>
<ul id="trial-list"></ul>
</div>
<div id="transcript"><p>Pick a trial to open its transcript.</p></div>
</div>
</section>
<script type="application/json" id="trial-index">${scriptJson({ agents, tasks, outcomes: OUTCOMES, paths, bases, rows })}</script>
${embedded}
<script>${TRANSCRIPT_VIEWER_SCRIPT}</script>
</body>
</html>
`;
}
