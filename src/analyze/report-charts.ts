import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { Report } from "./report-schema.js";
import { naturalCompare } from "./slice-stats.js";

/** One chart of the HTML report: a Vega-Lite spec, rendered to SVG at build time. */
export interface ChartSpec {
  /** Stable id, used as the figure's `data-chart` attribute (the browser test looks for it). */
  id: "chain-length" | "reliability" | "heatmap" | "failure-composition" | "cost-frontier" | "items";
  title: string;
  /** One sentence under the chart: how to read it. */
  caption: string;
  spec: TopLevelSpec;
}

const FONT = "system-ui, -apple-system, Segoe UI, sans-serif";
const CONFIG = {
  font: FONT,
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: "#e5e7eb" },
  legend: { labelFontSize: 11, titleFontSize: 12, orient: "bottom", labelLimit: 320, columns: 2 },
} as const;

const byPassRate = (report: Report) =>
  Object.entries(report.models)
    .sort((a, b) => (b[1].pass_rate ?? -1) - (a[1].pass_rate ?? -1) || naturalCompare(a[0], b[0]))
    .map(([name]) => name);

/**
 * The report's charts: chain-length curve against the independent-error null, reliability,
 * axis × model heatmap (world × model when the bank's axes are unknown, as in imported data),
 * failure composition and the cost frontier.
 *
 * @example for (const c of reportCharts(report)) svg[c.id] = await renderChartSvg(c.spec);
 */
export function reportCharts(report: Report): ChartSpec[] {
  const items = itemsChart(report);
  return [...coreCharts(report), ...(items ? [items] : [])];
}

function coreCharts(report: Report): ChartSpec[] {
  const models = byPassRate(report);
  return [
    chainLengthChart(report),
    reliabilityChart(report, models),
    heatmapChart(report, models),
    failureChart(report, models),
    costFrontierChart(report),
  ];
}

const percent = { format: "%" } as const;

/** Chain pass rate by length, observed against the independent-error null (and the clean slice). */
function chainLengthChart(report: Report): ChartSpec {
  const chainRows = Object.entries(report.null_model).flatMap(([L, p]) =>
    (
      [
        ["observed", p.observed],
        ["predicted (independent errors)", p.predicted],
        ["observed, clean", p.observed_clean],
        ["predicted, clean", p.predicted_clean],
      ] as const
    )
      .filter(([, v]) => v !== null)
      .map(([series, rate]) => ({ length: Number(L), series, rate })),
  );
  return {
    id: "chain-length",
    title: "Chain pass rate by length against the independent-error null",
    caption:
      "Observed pass rate of chains of L subtasks, and the rate predicted if subtask failures were independent (the product of each model's solo pass rates on subtasks 1..L of the world); dashed: clean slice.",
    spec: {
      width: 640,
      height: 300,
      config: CONFIG,
      data: { values: chainRows },
      mark: { type: "line", point: true },
      encoding: {
        x: { field: "length", type: "quantitative", title: "chain length L", axis: { tickMinStep: 1 } },
        y: {
          field: "rate",
          type: "quantitative",
          title: "pass rate",
          axis: percent,
          scale: { domain: [0, 1] },
        },
        color: { field: "series", type: "nominal", title: null },
        strokeDash: {
          field: "series",
          type: "nominal",
          scale: {
            domain: ["observed", "predicted (independent errors)", "observed, clean", "predicted, clean"],
            range: [
              [1, 0],
              [1, 0],
              [5, 3],
              [5, 3],
            ],
          },
        },
      },
    },
  };
}

/** Per model: best-of-k, pass rate and all-k-of-k. */
function reliabilityChart(report: Report, models: string[]): ChartSpec {
  const reliabilityRows = models.flatMap((model) => {
    const m = report.models[model]!;
    return (
      [
        ["best-of-k (reach)", m.best_of_k],
        ["pass rate", m.pass_rate],
        ["all-k-of-k (reliability)", m.all_k_of_k],
      ] as const
    )
      .filter(([, v]) => v !== null)
      .map(([metric, value]) => ({ model, metric, value, k: m.k }));
  });
  return {
    id: "reliability",
    title: "Reach and reliability per model",
    caption:
      "Per model, the fraction of tasks passed in at least one of k epochs (best-of-k), the pooled pass rate, and the fraction passed in every epoch (all-k-of-k).",
    spec: {
      width: 520,
      height: { step: 18 },
      config: CONFIG,
      data: { values: reliabilityRows },
      layer: [
        {
          mark: { type: "rule", color: "#9ca3af" },
          encoding: {
            y: { field: "model", type: "nominal", sort: models, title: null },
            x: { aggregate: "min", field: "value", type: "quantitative" },
            x2: { aggregate: "max", field: "value" },
          },
        },
        {
          mark: { type: "point", filled: true, size: 70 },
          encoding: {
            y: { field: "model", type: "nominal", sort: models, title: null },
            x: {
              field: "value",
              type: "quantitative",
              title: "fraction of tasks",
              axis: percent,
              scale: { domain: [0, 1] },
            },
            color: { field: "metric", type: "nominal", title: null },
          },
        },
      ],
    },
  };
}

/** Pass rate by axis (by world when the axes are unknown) and model. */
function heatmapChart(report: Report, models: string[]): ChartSpec {
  const hasAxes = Object.keys(report.slices.by_axis).length > 0;
  const heatRows = models.flatMap((model) => {
    const slices = hasAxes ? report.models[model]!.slices.by_axis : report.models[model]!.slices.by_world;
    return Object.entries(slices)
      .filter(([, s]) => s.pass_rate !== null)
      .map(([group, s]) => ({ model, group, rate: s.pass_rate, n: s.n }));
  });
  const groups = Object.keys(hasAxes ? report.slices.by_axis : report.slices.by_world).sort(naturalCompare);
  return {
    id: "heatmap",
    title: hasAxes
      ? "Pass rate by axis and model"
      : "Pass rate by world and model (axes unknown in this data)",
    caption: hasAxes
      ? "Each cell is a model's pass rate on the subtasks and chains of one axis."
      : "The bank's axes are not known for imported data, so cells are worlds instead.",
    spec: {
      config: CONFIG,
      data: { values: heatRows },
      width: { step: 26 },
      height: { step: 18 },
      mark: { type: "rect" },
      encoding: {
        x: { field: "group", type: "nominal", sort: groups, title: hasAxes ? "axis" : "world" },
        y: { field: "model", type: "nominal", sort: models, title: null },
        color: {
          field: "rate",
          type: "quantitative",
          title: "pass rate",
          scale: { scheme: "viridis", domain: [0, 1] },
          legend: { format: "%", orient: "right" },
        },
      },
    },
  };
}

/** Among failures: G1 only, G2 only, both, other; overall and per model. */
function failureChart(report: Report, models: string[]): ChartSpec {
  const failureRows = [
    ["all models", report.slices.all.failures] as const,
    ...models.map((m) => [m, report.slices.by_model[m]!.failures] as const),
  ].flatMap(([model, f]) =>
    (
      [
        ["G1 only (labour)", f.g1_only],
        ["G2 only (delivery)", f.g2_only],
        ["both", f.both],
        ["other", f.other],
      ] as const
    )
      .filter(([, v]) => f.n > 0 && v > 0)
      .map(([part, fraction], order) => ({ model, part, fraction, order, failures: f.n })),
  );
  return {
    id: "failure-composition",
    title: "Failure composition",
    caption:
      "Among scored failures: only the labour predicates failed (G1), only the answer card failed with the state correct (G2, delivery), both, or neither known.",
    spec: {
      width: 520,
      height: { step: 18 },
      config: CONFIG,
      data: { values: failureRows },
      mark: { type: "bar" },
      encoding: {
        y: { field: "model", type: "nominal", sort: ["all models", ...models], title: null },
        x: {
          field: "fraction",
          type: "quantitative",
          stack: "normalize",
          title: "fraction of failures",
          axis: percent,
        },
        color: {
          field: "part",
          type: "nominal",
          title: null,
          scale: {
            domain: ["G1 only (labour)", "G2 only (delivery)", "both", "other"],
            range: ["#4e79a7", "#f28e2b", "#e15759", "#bab0ac"],
          },
        },
        order: { field: "order", type: "quantitative" },
      },
    },
  };
}

/** Cost against pass rate per model, with the frontier. */
function costFrontierChart(report: Report): ChartSpec {
  const frontier = report.cost.frontier;
  const costTitle = frontier.basis === "cost_usd" ? "mean cost per trial (USD)" : "mean tokens per trial";
  return {
    id: "cost-frontier",
    title: `Cost and pass rate (${frontier.basis === "cost_usd" ? "USD" : "tokens: prices unknown"})`,
    caption:
      "Each point is a model; the line joins the frontier, the models no other beats on both cost and pass rate.",
    spec: {
      width: 560,
      height: 320,
      config: CONFIG,
      data: { values: frontier.points },
      layer: [
        {
          transform: [{ filter: "datum.on_frontier" }],
          mark: { type: "line", color: "#9ca3af", interpolate: "step-after" },
          encoding: {
            x: { field: "cost", type: "quantitative" },
            y: { field: "pass_rate", type: "quantitative" },
          },
        },
        {
          mark: { type: "point", filled: true, size: 60 },
          encoding: {
            x: {
              field: "cost",
              type: "quantitative",
              title: costTitle,
              // A log axis has no place for $0 (a scripted or free agent): symlog keeps it.
              scale: { type: frontier.points.some((p) => p.cost <= 0) ? "symlog" : "log", nice: false },
            },
            y: { field: "pass_rate", type: "quantitative", title: "pass rate", axis: percent },
            color: {
              field: "on_frontier",
              type: "nominal",
              title: "on frontier",
              scale: { domain: [true, false], range: ["#e15759", "#4e79a7"] },
            },
          },
        },
        {
          // Only the frontier is labelled: two dozen labels on one chart would hide each other.
          transform: [{ filter: "datum.on_frontier" }],
          mark: { type: "text", align: "left", dx: 6, dy: -6, fontSize: 10 },
          encoding: {
            x: { field: "cost", type: "quantitative" },
            y: { field: "pass_rate", type: "quantitative" },
            text: { field: "agent" },
          },
        },
      ],
    },
  };
}

/**
 * The link from a task to its transcripts in the page's viewer: the viewer reads `#task=<id>`,
 * filters to the task and opens its first trial.
 *
 * @example taskViewerHref("v56-w03-sub02") // "#task=v56-w03-sub02"
 */
export function taskViewerHref(taskId: string): string {
  return `#task=${encodeURIComponent(taskId)}`;
}

/**
 * The item analysis chart: each task at its difficulty (x) and discrimination (y); a click on a
 * point opens the task's transcript in the viewer. Tasks without a defined discrimination (every
 * model passed, none did, or fewer than three models) sit on a strip below the axis at −1.1 so that
 * the flagged ones stay visible.
 *
 * @example const chart = itemsChart(report); if (chart) svg = await renderChartSvg(chart.spec);
 */
export function itemsChart(report: Report): ChartSpec | null {
  const items = report.items;
  if (!items || items.items.length === 0) return null;
  const rows = items.items
    .filter((i) => i.difficulty !== null)
    .map((i) => ({
      task: i.task_id,
      difficulty: i.difficulty,
      discrimination: i.discrimination ?? -1.1,
      defined: i.discrimination !== null,
      flag: i.flags.length ? i.flags.join(", ").replaceAll("_", " ") : "none",
      kind: i.kind,
      href: taskViewerHref(i.task_id),
    }));
  return {
    id: "items",
    title: "Items: difficulty and discrimination",
    caption:
      "Each point is a task: its pass rate across models (right is easy) and how well passing it tracks a model's pass rate on the other tasks (up separates models). Points on the strip at −1.1 have no defined discrimination. Click a point to open the task's transcript below.",
    spec: {
      width: 640,
      height: 360,
      config: CONFIG,
      data: { values: rows },
      mark: { type: "point", filled: true, size: 45, opacity: 0.75, cursor: "pointer" },
      encoding: {
        x: {
          field: "difficulty",
          type: "quantitative",
          title: "difficulty (pass rate across models)",
          axis: { format: "%" },
          scale: { domain: [0, 1] },
        },
        y: {
          field: "discrimination",
          type: "quantitative",
          title: "discrimination (item–rest correlation)",
          scale: { domain: [-1.2, 1] },
        },
        color: {
          field: "flag",
          type: "nominal",
          title: "flags",
          scale: {
            domain: ["none", "all pass", "none pass", "negative discrimination"],
            range: ["#4e79a7", "#59a14f", "#e15759", "#f28e2b"],
          },
        },
        shape: { field: "kind", type: "nominal", title: "task" },
        href: { field: "href", type: "nominal" },
        tooltip: [
          { field: "task", type: "nominal" },
          { field: "difficulty", type: "quantitative", format: ".1%" },
          { field: "discrimination", type: "quantitative", format: ".2f" },
        ],
      },
    },
  };
}

/**
 * Render a Vega-Lite spec to a standalone SVG string in Node (no browser, no canvas, no network).
 *
 * @example const svg = await renderChartSvg(reportCharts(report)[0].spec);
 */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
