import { OUTCOMES } from "../run/trial-record.js";
import type { ItemAnalysis, ItemFlag, ItemSpread } from "./item-analysis.js";
import type { Report } from "./report-schema.js";

/** A table as rows of cells, rendered by `renderTerminal` or `renderMarkdown`. */
export interface Table {
  title: string;
  header: string[];
  rows: string[][];
  /** Columns aligned right (numbers). */
  right?: number[];
  /** A sentence shown under the title (a warning, how to read the table). */
  note?: string;
  /** A column of task ids: the HTML page links each to the task's transcripts in its viewer. */
  taskColumn?: number;
}

/** A fraction as a percentage with one decimal; `—` for no data. */
export const pct = (x: number | null | undefined): string =>
  x === null || x === undefined ? "—" : `${(x * 100).toFixed(1)}%`;
const ci = (c: [number, number] | null | undefined) => (c ? `${pct(c[0])}–${pct(c[1])}` : "—");
const signedPct = (x: number | null | undefined) =>
  x === null || x === undefined ? "—" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
const signedCi = (c: [number, number] | null | undefined) =>
  c ? `${signedPct(c[0])} … ${signedPct(c[1])}` : "—";
const num = (x: number | null | undefined, digits = 0) =>
  x === null || x === undefined ? "—" : x.toLocaleString("en-US", { maximumFractionDigits: digits });

/**
 * The report's tables, in reading order: trials, models, chain length against the null, slices,
 * failure composition, screen and cost.
 *
 * @example for (const t of reportTables(report)) io.stdout(renderTerminal(t));
 */
export function reportTables(report: Report): Table[] {
  const t = report.trials;
  const models = Object.entries(report.models).sort(
    (a, b) => (b[1].pass_rate ?? -1) - (a[1].pass_rate ?? -1),
  );
  const iv = report.interval;
  const level = `${Math.round(iv.level * 100)}%`;
  const warning = iv.warning ? `Warning: ${iv.warning}.` : undefined;
  const sliceRow = (label: string, st: Report["slices"]["solo"]) => [
    label,
    num(st.n),
    num(st.clusters),
    pct(st.pass_rate),
    ci(st.ci90),
  ];
  const tables: Table[] = [
    {
      title: "Trials",
      header: ["total", "scored", "not scored", ...Object.keys(t.by_outcome)],
      rows: [
        [num(t.total), num(t.scored), num(t.unscored), ...Object.values(t.by_outcome).map((v) => num(v))],
      ],
      right: Array.from({ length: 3 + Object.keys(t.by_outcome).length }, (_, i) => i),
    },
    {
      title: "Outcomes by model (provider_error, harness_error and unscored are not scored)",
      header: ["model", "total", "not scored", ...OUTCOMES.filter((o) => t.by_outcome[o])],
      rows: models.map(([name, m]) => [
        name,
        num(m.trials.total),
        num(m.trials.unscored),
        ...OUTCOMES.filter((o) => t.by_outcome[o]).map((o) => num(m.trials.by_outcome?.[o] ?? 0)),
      ]),
      right: Array.from({ length: 2 + Object.keys(t.by_outcome).length }, (_, i) => i + 1),
    },
    {
      title: `Models (${level} CI: ${iv.method}, ${iv.clusters} worlds)`,
      note: warning,
      header: [
        "model",
        "n",
        "pass",
        `${level} CI`,
        "solo",
        "chain",
        "chain clean",
        "k",
        "best-of-k",
        `${level} CI`,
        "all-k-of-k",
        `${level} CI`,
        "pass^k",
      ],
      rows: models.map(([name, m]) => [
        name,
        num(m.n),
        pct(m.pass_rate),
        ci(m.ci90),
        pct(m.slices.solo.pass_rate),
        pct(m.slices.chain.pass_rate),
        pct(m.clean.chain.pass_rate),
        String(m.k),
        pct(m.best_of_k),
        ci(m.best_of_k_ci90),
        pct(m.all_k_of_k),
        ci(m.all_k_of_k_ci90),
        pct(m.pass_hat_k),
      ]),
      right: [1, 2, 4, 5, 6, 7, 8, 10, 12],
    },
    {
      title: `Pass rate by slice, all models (${level} CI: ${iv.method}; a single world's slice clusters by task)`,
      header: ["slice", "n", "clusters", "pass", `${level} CI`],
      rows: [
        sliceRow("all", report.slices.all),
        sliceRow("solo", report.slices.solo),
        sliceRow("chain", report.slices.chain),
        sliceRow("chain (clean)", report.clean.chain),
        ...Object.entries(report.slices.by_axis).map(([k, st]) => sliceRow(`axis ${k}`, st)),
        ...Object.entries(report.slices.by_world).map(([k, st]) => sliceRow(`world ${k}`, st)),
      ],
      right: [1, 2, 3],
    },
    {
      title: `Chains by length against the independent-error null (${level} CIs over the worlds with a chain of that length)`,
      header: [
        "L",
        "worlds",
        "n",
        "observed",
        `${level} CI`,
        "predicted",
        "observed − predicted",
        `${level} CI`,
        "n clean",
        "observed clean",
        "predicted clean",
        "gap clean",
        `${level} CI`,
        "spread",
        "spread (log-odds)",
      ],
      rows: Object.entries(report.null_model).map(([L, p]) => [
        L,
        num(p.worlds),
        num(p.n),
        pct(p.observed),
        ci(report.slices.chain_by_length[L]?.ci90),
        pct(p.predicted),
        signedPct(p.gap),
        signedCi(p.gap_ci90),
        num(p.n_clean),
        pct(p.observed_clean),
        pct(p.predicted_clean),
        signedPct(p.gap_clean),
        signedCi(p.gap_clean_ci90),
        pct(report.spread.chain_by_length[L]),
        num(report.spread_log_odds.chain_by_length[L], 2),
      ]),
      right: [0, 1, 2, 3, 5, 6, 8, 9, 10, 11, 13, 14],
    },
    {
      title: "Chains by length against the independent-error null, per model",
      header: ["model", "L", "n", "observed", "predicted"],
      rows: models.flatMap(([name, m]) =>
        Object.entries(m.null_model ?? {}).map(([L, p]) => [
          name,
          L,
          num(p.n),
          pct(p.observed),
          pct(p.predicted),
        ]),
      ),
      right: [1, 2, 3, 4],
    },
    {
      title: "Failure composition (fractions of scored failures)",
      header: ["slice", "failures", "g1 only", "g2 only (delivery)", "both", "other"],
      rows: [
        ["solo", report.slices.solo],
        ["chain", report.slices.chain],
        ["chain (clean)", report.clean.chain],
        ...models.map(([name]) => [name, report.slices.by_model[name]!] as const),
      ].map(([label, s]) => {
        const f = (s as Report["slices"]["solo"]).failures;
        return [label as string, num(f.n), pct(f.g1_only), pct(f.g2_only), pct(f.both), pct(f.other)];
      }),
      right: [1, 2, 3, 4, 5],
    },
    {
      title:
        report.screen.computed === false
          ? `Consensus screen: not computed (${report.screen.models} model${report.screen.models === 1 ? "" : "s"} with chain trials; it needs ${report.screen.min_models}); clean = inclusive`
          : `Consensus screen: ${report.screen.flagged_cells.length} chain cells no model passes (${report.screen.flagged_trials} trials)`,
      header: ["slice", "inclusive", "clean"],
      rows: [
        ["solo", pct(report.slices.solo.pass_rate), pct(report.clean.solo.pass_rate)],
        ["chain", pct(report.slices.chain.pass_rate), pct(report.clean.chain.pass_rate)],
        ["spread solo", pct(report.spread.solo), "—"],
        ["spread chain", pct(report.spread.chain), "—"],
      ],
      right: [1, 2],
    },
    {
      title: `Cost (${report.cost.frontier.basis === "cost_usd" ? "USD per trial" : "tokens per trial: prices unknown"})`,
      header: ["model", "cost", "pass", "frontier"],
      rows: report.cost.frontier.points.map((p) => [
        p.agent,
        report.cost.frontier.basis === "cost_usd" ? `$${p.cost.toFixed(4)}` : num(p.cost),
        pct(p.pass_rate),
        p.on_frontier ? "yes" : "",
      ]),
      right: [1, 2],
    },
  ];
  const failed = report.failed_requirements ?? [];
  tables.push({
    title: "Failed requirements (the first failure of failed trials)",
    note:
      failed.length > FAILED_REQUIREMENT_ROWS
        ? `The ${FAILED_REQUIREMENT_ROWS} most failed of ${failed.length}; the JSON report lists all.`
        : undefined,
    header: ["requirement", "failed trials", "tasks", "example task", "its sentence"],
    rows: failed
      .slice(0, FAILED_REQUIREMENT_ROWS)
      .map((f) => [f.requirement, num(f.trials), num(f.tasks), f.example_task, f.sentence ?? "—"]),
    right: [1, 2],
  });
  if (report.items) tables.push(...itemTables(report.items));
  return tables.filter((table) => table.rows.length > 0);
}

/** Rows of the failed-requirements table in the terminal and Markdown reports. */
const FAILED_REQUIREMENT_ROWS = 15;

const FLAG_LABEL: Record<ItemFlag, string> = {
  all_pass: "all pass",
  none_pass: "none pass",
  negative_discrimination: "negative discrimination",
};

/**
 * The item analysis as tables: the spread of difficulty (all tasks, per axis, per world) and one
 * row per task.
 *
 * @example itemTables(buildReport(records, { items: true }).items!)
 */
export function itemTables(items: ItemAnalysis): Table[] {
  const spreadRow = (label: string, s: ItemSpread) => [
    label,
    num(s.tasks),
    pct(s.mean),
    pct(s.sd),
    pct(s.min),
    pct(s.median),
    pct(s.max),
    num(s.all_pass),
    num(s.none_pass),
    num(s.negative_discrimination),
  ];
  return [
    {
      title: "Items: spread of difficulty (difficulty = pass rate across models; high is easy)",
      note: `Discrimination: ${items.method.discrimination}; defined for ${items.discrimination_defined} of ${items.items.length} tasks.`,
      header: [
        "group",
        "tasks",
        "mean",
        "sd",
        "min",
        "median",
        "max",
        "all pass",
        "none pass",
        "neg. discr.",
      ],
      rows: [
        spreadRow("all tasks", items.all),
        ...Object.entries(items.by_axis).map(([k, s]) => spreadRow(`axis ${k}`, s)),
        ...Object.entries(items.by_world).map(([k, s]) => spreadRow(`world ${k}`, s)),
      ],
      right: [1, 2, 3, 4, 5, 6, 7, 8, 9],
    },
    {
      title: "Items (per task)",
      note: `Difficulty: ${items.method.difficulty}.`,
      header: ["task", "axis", "models", "trials", "difficulty", "90% CI", "discrimination", "flags"],
      rows: items.items.map((i) => [
        i.task_id,
        i.axis ?? "—",
        num(i.models),
        num(i.trials),
        pct(i.difficulty),
        ci(i.difficulty_ci90),
        num(i.discrimination, 2),
        i.flags.map((f) => FLAG_LABEL[f]).join(", "),
      ]),
      right: [2, 3, 4, 6],
      taskColumn: 0,
    },
  ];
}

/**
 * A table as aligned plain text for a terminal.
 *
 * @example io.stdout(renderTerminal({ title: "x", header: ["a"], rows: [["1"]] }))
 */
export function renderTerminal(table: Table): string {
  const widths = table.header.map((h, i) =>
    Math.max(h.length, ...table.rows.map((r) => (r[i] ?? "").length)),
  );
  const right = new Set(table.right ?? []);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [
    table.title,
    ...(table.note ? [table.note] : []),
    line(table.header),
    widths.map((w) => "─".repeat(w)).join("  "),
    ...table.rows.map(line),
    "",
  ].join("\n");
}

/**
 * A table as GitHub-flavoured Markdown.
 *
 * @example writeFileSync("report.md", reportTables(r).map(renderMarkdown).join("\n"))
 */
export function renderMarkdown(table: Table): string {
  const right = new Set(table.right ?? []);
  const esc = (c: string) => c.replaceAll("|", "\\|");
  return [
    `### ${table.title}`,
    "",
    ...(table.note ? [table.note, ""] : []),
    `| ${table.header.map(esc).join(" | ")} |`,
    `| ${table.header.map((_, i) => (right.has(i) ? "---:" : "---")).join(" | ")} |`,
    ...table.rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
    "",
  ].join("\n");
}

/** The whole report as Markdown. */
export function reportMarkdown(report: Report): string {
  return [
    "# APIFlow-Bench report",
    "",
    `Bank: ${report.bank_hashes.join(", ") || "—"}. Runs: ${report.runs.map((r) => `\`${r.dir}\` (${r.trials})`).join(", ")}.`,
    "Denominators are scored trials; harness and provider errors and trials without a verdict are counted, not scored.",
    `Intervals: ${Math.round(report.interval.level * 100)}% ${report.interval.method}, ${report.interval.clusters} worlds.`,
    ...(report.interval.warning ? [`**Warning:** ${report.interval.warning}.`] : []),
    "",
    ...reportTables(report).map(renderMarkdown),
  ].join("\n");
}
