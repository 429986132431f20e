import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  b64,
  CARD_RULE,
  type Json,
  MODELS,
  type Model,
  SYSTEM,
  TICKETS,
  type Ticket,
  TRIALS,
  type TrialSpec,
  type Turn,
} from "./official-fixture-trials.js";

/**
 * Fixture transcripts in the layout of the published APIFlow-Bench 1.0 transcripts
 * (`<model-slug>/<task_id>-t<N>.json`, one compact JSON object per trial, `_export_manifest.json`
 * beside the model folders), written by this module so the default test run needs nothing outside
 * the repository. `npm run fixtures:official` rewrites `test/fixtures/official-1.0/` (27 trials of 5
 * models) and `test/fixtures/official-1.0-malformed/` (files the importer and `regrade-official`
 * must name and skip); `test/official-fixtures.test.ts` checks the committed files are what it writes.
 *
 * The trials are made up (models, worlds and values are ours), in the shapes the published sample
 * shows: opaque and readable `reasoning` parts, plain-string assistant content, parallel tool calls,
 * arguments sent as JSON strings, tool errors, several ```json blocks in the final message (the last
 * is the card), a card drafted only in the reasoning, abstentions (`clarify`, `report_blocked`),
 * a trial cut off on a tool call, unscored trials (verdict `""`, no verifier: provider errors), solo
 * and chain tasks (selective chain grading: the final segment's predicates), string, numeric and
 * set comparators, and raw UTF-8 (`✓`, `—`) next to `\u2014` escapes. Every recorded G2 grade below
 * (`got`, `reason`) is written out by hand as the 1.0 verifier words it, so a regrade that agrees
 * with them agrees with 1.0's rules, not with itself. No clock, no randomness: ids are hashes.
 */

type Message = { [key: string]: Json };

function assistant(model: Model, seed: string, turn: Turn, n: { calls: number }): Message[] {
  const calls = (turn.calls ?? []).map((call) => ({ call, id: model.callId(++n.calls, seed) }));
  let content: Json;
  if (model.style === "string") {
    content = [turn.think, turn.text].filter((s) => s !== undefined).join("\n\n");
  } else {
    const parts: Json[] = [];
    if (turn.think !== undefined) {
      const reasoning =
        model.style === "signed" ? `CAIS${b64(`${seed}${n.calls}${turn.think}`, 340)}` : turn.think;
      parts.push({ type: "reasoning", reasoning });
    }
    if (turn.text !== undefined) parts.push({ type: "text", text: turn.text });
    content = parts;
  }
  const message: Message = { role: "assistant", content };
  if (calls.length)
    message.tool_calls = calls.map(({ call, id }) => ({ id, name: call.name, arguments: call.args }));
  const results = calls.map(
    ({ call, id }): Message =>
      typeof call.result === "string"
        ? { role: "tool", content: call.result, tool_call_id: id, function: call.name }
        : {
            role: "tool",
            content: "",
            tool_call_id: id,
            function: call.name,
            error: { type: "unknown", message: call.result.error },
          },
  );
  return [message, ...results];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The recorded predicates of a scored trial: G2 fields first, then G1, as 1.0 lists them. */
function predicatesOf(spec: TrialSpec, ticket: Ticket): Json[] {
  const g2 = spec.g2 ?? {};
  const fields = ticket.fields.map((f) => {
    const r = g2[f.field];
    if (!r) throw new Error(`${spec.model}/${spec.task}: no recorded grade for ${f.field}`);
    const shown = typeof f.expected === "string" ? `'${f.expected}'` : JSON.stringify(f.expected);
    const detail: { [key: string]: Json } = {
      field: f.field,
      expected: f.expected,
      comparator: f.comparator,
      explain: f.explain,
      prompt_quote: f.quote,
    };
    if (r.got !== undefined) detail.got = r.got;
    if (r.reason !== undefined) detail.reason = r.reason;
    const key = `answer_schema.${f.field}`;
    return {
      label: `answer.${f.field} == ${shown}`,
      key,
      group: "G2",
      segment: ticket.segment,
      passed: r.passed,
      detail,
    };
  });
  const g1 = ticket.g1.map((p, i) => ({
    label: p.label,
    group: "G1",
    passed: spec.g1?.[i] ?? false,
    segment: ticket.segment,
    detail: {
      explain: p.explain,
      prompt_quote: ticket.text.slice(0, 60),
      segment: ticket.segment,
      ...p.detail,
    },
  }));
  return [...fields, ...g1];
}

/** 1.0's one-line verdict: all matched, an abstention, or the count and the first failure. */
function explanationOf(spec: TrialSpec, ticket: Ticket, passed: number, total: number): string {
  const g2 = spec.g2 ?? {};
  const g1Passed = ticket.g1.every((_, i) => spec.g1?.[i]);
  const g2Passed = ticket.fields.every((f) => g2[f.field]?.passed);
  if (spec.abstained) return `agent abstained (${spec.abstained.tool}): ${spec.abstained.text}`;
  if (g1Passed && g2Passed) return "all signature predicates matched (G1 state ✓, G2 answer ✓)";
  const failed = [g1Passed ? null : "G1 state", g2Passed ? null : "G2 answer"].filter(Boolean).join(", ");
  const fieldFailures = ticket.fields
    .filter((f) => !g2[f.field]?.passed)
    .map((f) =>
      g2[f.field]?.got === undefined
        ? `answer field '${f.field}' missing from the declared JSON answer card`
        : `answer field '${f.field}': ${g2[f.field]?.reason}`,
    );
  const first = ticket.g1.find((_, i) => !spec.g1?.[i])?.failure ?? fieldFailures[0];
  return `${passed}/${total} predicates matched; failed: ${failed}; first failure: ${first}`;
}

/** The verifier block of a scored trial, and whether it passed. */
function verifierOf(spec: TrialSpec, ticket: Ticket, toolCalls: Json[]): { pass: boolean; verifier: Json } {
  const predicates = predicatesOf(spec, ticket) as Array<{ group: string; passed: boolean }>;
  const total = predicates.length;
  const passedCount = predicates.filter((p) => p.passed).length;
  const g1Passed = predicates.every((p) => p.group !== "G1" || p.passed);
  const g2Passed = predicates.every((p) => p.group !== "G2" || p.passed);
  const pass = g1Passed && g2Passed && !spec.abstained;
  const explanation = explanationOf(spec, ticket, passedCount, total);
  const named = (name: string) => toolCalls.filter((c) => (c as { name: string }).name === name).length;
  const segment = {
    passed: passedCount,
    total,
    fraction: round(passedCount / total),
    g1_passed: g1Passed,
    g2_passed: g2Passed,
  };
  const hit = g1Passed && !spec.abstained;
  const sub_predicates = {
    tool_call_count: toolCalls.length,
    new_response_count: named("execute"),
    new_variable_count: named("write"),
    demoted_predicates: [],
    checkpoints: ticket.checkpoints.map((c) => ({
      id: c.id,
      desc: null,
      hit,
      applicable: true,
      explain: c.explain,
    })),
    constraints: [],
    g1_passed: g1Passed,
    g2_passed: g2Passed,
    predicates_passed: passedCount,
    predicates_total: total,
    segment_diagnostics: {
      per_segment: ticket.segment === null ? {} : { [String(ticket.segment)]: segment },
      failure_stage: null,
      symptom_stage: ticket.segment !== null && !pass ? ticket.segment : null,
      tagged_segments: ticket.segment === null ? 0 : 1,
    },
  };
  const metadata = { sub_predicates, partial_score: round(passedCount / total), predicates };
  const value = pass ? "C" : "I";
  return { pass, verifier: { scorer: "validator_scorer", value, explanation, metadata } };
}

/** The transcript of one fixture trial, as a JSON value with 1.0's key order. */
function transcript(spec: TrialSpec, index: number): { [key: string]: Json } {
  const model = MODELS[spec.model]!;
  const ticket = TICKETS[spec.task]!;
  const seed = `${spec.model}/${spec.task}/${spec.trial}`;
  const n = { calls: 0 };
  const messages: Message[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: `${ticket.text}\n\n${CARD_RULE(ticket.fields)}` },
  ];
  for (const turn of spec.turns) messages.push(...assistant(model, seed, turn, n));
  if (spec.final) messages.push(...assistant(model, seed, spec.final, n));
  const toolCalls = messages.flatMap((m) => (Array.isArray(m.tool_calls) ? m.tool_calls : []));
  const [input, output, cache] = spec.tokens;
  // A fixed start, one trial every 137 s: no clock.
  const created = new Date(Date.UTC(2026, 6, 18, 9, 0, 0) + index * 137_000)
    .toISOString()
    .replace(".000Z", "+00:00");
  const source = `${created.slice(0, 19).replaceAll(":", "-")}-00-00_${spec.task}_${b64(`src/${seed}`, 22).replace(/[+/]/g, "S")}`;
  const provenance = {
    bench: "APIFlow-Bench 1.0",
    run_id: b64(`run/${spec.model}`, 22).replace(/[+/]/g, "Q"),
    eval_id: b64(`eval/${seed}`, 22).replace(/[+/]/g, "R"),
    source_eval: `${source}.eval`,
    epoch: spec.trial,
    created,
  };
  const head = {
    schema_version: "1.0",
    model: model.slug,
    model_api: model.api,
    task_id: spec.task,
    trial: spec.trial,
  };
  const tokens = { input, output, cache, total: input + output + cache + (index % 3) * 512 };
  const scored = spec.unscored ? null : verifierOf(spec, ticket, toolCalls);
  return {
    ...head,
    verdict: scored === null ? "" : scored.pass ? "C" : "I",
    passed: scored === null ? null : scored.pass,
    failure_reason: scored === null ? "" : (scored.verifier as { explanation: string }).explanation,
    tokens,
    duration_s: spec.seconds,
    messages,
    verifier: scored?.verifier ?? null,
    provenance,
  };
}

const fileName = (spec: { task: string; trial: number }) => `${spec.task}-t${spec.trial}.json`;

/** Write the well-formed fixture set (the published sample's layout) into `dir`, replacing it. */
export function writeOfficialFixtures(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  const perModel: Record<string, { trials: number; pairs: Set<string>; bytes: number }> = {};
  const unscored: string[] = [];
  for (const [i, spec] of TRIALS.entries()) {
    const text = JSON.stringify(transcript(spec, i));
    mkdirSync(join(dir, spec.model), { recursive: true });
    writeFileSync(join(dir, spec.model, fileName(spec)), text);
    const m = perModel[spec.model] ?? { trials: 0, pairs: new Set<string>(), bytes: 0 };
    perModel[spec.model] = m;
    m.trials++;
    m.pairs.add(spec.task);
    m.bytes += Buffer.byteLength(text);
    if (spec.unscored) unscored.push(`${spec.model}/${spec.task}-t${spec.trial}`);
  }
  const sizes = readdirSync(dir).flatMap((m) =>
    readdirSync(join(dir, m)).map((f) => statSync(join(dir, m, f)).size),
  );
  const manifest = {
    bench: "APIFlow-Bench 1.0",
    note: "Fixture transcripts written by test/support/official-fixtures.ts (npm run fixtures:official); made-up trials in the layout of the published 1.0 sample.",
    schema_version: "1.0",
    n_trials: TRIALS.length,
    n_unscored_trials: unscored.length,
    n_errors: 0,
    errors: [],
    per_model: Object.fromEntries(
      Object.entries(perModel)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, { bytes: v.bytes, pairs: v.pairs.size, trials: v.trials }]),
    ),
    total_bytes: sizes.reduce((s, x) => s + x, 0),
    max_file_bytes: Math.max(...sizes),
    unscored_trials: unscored.sort(),
  };
  writeFileSync(join(dir, "_export_manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Write the malformed set into `dir`, replacing it: what the importer and `regrade-official` must
 * name and skip, beside one good file. (An unreadable file cannot be committed; tests chmod one.)
 */
export function writeMalformedFixtures(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  const m = join(dir, "brook-7b");
  mkdirSync(m, { recursive: true });
  const good = TRIALS.find((t) => t.model === "brook-7b" && t.task === "v56-w04-sub03")!;
  const goodText = JSON.stringify(transcript(good, 0));
  const put = (name: string, text: string | Buffer) => writeFileSync(join(m, name), text);
  put(fileName(good), goodText);
  put("v56-w01-sub01-t1.json", "{ not json");
  put("v56-w01-sub04-t1.json", goodText.slice(0, 400));
  put("v56-w01-sub05-t1.json", JSON.stringify({ schema_version: "1.0" }));
  put(
    "v56-w01-sub06-t1.json",
    JSON.stringify({ ...transcript(good, 0), task_id: "v56-w01-sub06", trial: 1, messages: "none" }),
  );
  put("v56-w04-sub03-t9.json", goodText);
  put(
    "v56-w02-sub00-t1.json",
    JSON.stringify({ ...transcript(good, 0), task_id: "v56-w02-sub00", trial: 1 }),
  );
  put(
    "v56-w04-sub01-t1.json",
    Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify({ ...transcript(good, 0), task_id: "v56-w04-sub01", trial: 1 })),
    ]),
  );
  const badDetail = transcript(good, 0) as {
    verifier: { metadata: { predicates: Array<{ detail: { [k: string]: Json } }> } };
  };
  delete badDetail.verifier.metadata.predicates[0]!.detail.comparator;
  put("v56-w04-sub02-t1.json", JSON.stringify({ ...badDetail, task_id: "v56-w04-sub02", trial: 1 }));
  writeFileSync(join(dir, "_export_manifest.json"), "{}\n");
}
