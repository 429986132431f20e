import { splitAtPlaceholders } from "../../bank/placeholder-grammar.js";
import type { Premise } from "../../bank/premise-schema.js";
import type {
  AnswerField,
  ExpectedValue,
  ForbidConstraint,
  G1Predicate,
  GoldenStep,
  RecordSelector,
  Requirement,
} from "../../bank/task-schema.js";
import type { BuiltWorld, SymRecord } from "../build-world.js";
import type { CallOptions, GoldenBuilder } from "../golden-builder.js";
import { withOtherSources } from "../other-sources.js";
import { attachRequirements } from "../requirements.js";
import type { Coupling, GenSubtask, Probe } from "../story-state.js";
import { flowToAnswer, re } from "../story-state.js";
import type { TemplateContext } from "../subtask-template.js";
import { fieldList, sentence, type TicketGrammar } from "../ticket-grammar.js";
import type { AssetTemplate, WorldTemplate } from "../world-template.js";

/** An answer-card field; strings compare exactly, numbers with the default tolerance. */
export function field(name: string, expected: ExpectedValue, explain: string): AnswerField {
  return { field: name, comparator: typeof expected === "number" ? "numeric" : "string", expected, explain };
}

/**
 * A part of a ticket or of a chain step, in order: story (what happened or what the world is like,
 * kept verbatim, demanding nothing) or a requirement, whose sentence (in a chain step, its brief)
 * is rendered from it. Empty and `false` parts are left out.
 */
export type TicketPart = string | false | undefined | Requirement;

/**
 * Render ticket parts: the text (see `sentence`), its story parts and its requirements (each once,
 * in order). In a chain step (`brief`) a requirement states its `brief`, else its sentence.
 *
 * @example renderParts(["The job gets a 409.", statusReq]).text // "The job gets a 409. Move CN-12 to `settled`."
 */
export function renderParts(
  parts: readonly TicketPart[],
  brief = false,
): { text: string; story: string[]; requirements: Requirement[] } {
  const story: string[] = [];
  const requirements: Requirement[] = [];
  const text: string[] = [];
  for (const p of parts) {
    if (p === false || p === undefined || p === "") continue;
    if (typeof p === "string") {
      story.push(p);
      text.push(p);
      continue;
    }
    const said = brief ? (p.brief ?? p.sentence) : p.sentence;
    if (said === undefined) throw new Error(`requirement ${p.id} has no sentence to render`);
    text.push(said);
    if (!requirements.some((r) => r.id === p.id)) requirements.push(p);
  }
  return { text: sentence(...text), story, requirements };
}

/**
 * The sentence a chain's introduction states the decoy constraints in; every segment's
 * `stay_canonical` requirement has it as its brief.
 */
export function chainCanonicalSentence(t: WorldTemplate): string {
  const version = /\/(v\d+)/.exec(t.base)?.[1] ?? "v3";
  return `Throughout, stay on the current ${version} routes: no deprecated or ${t.lookalike.audience} routes.`;
}

/**
 * Assemble a generated subtask from its parts. A template states its ticket either as parts in
 * order (`ticket` as `TicketPart`s: story, and requirements whose sentences are rendered), or as
 * `story` (what happened and what the world is like, no requirement language) and `requirements`
 * (each with the sentence it renders and the predicates that hold it), the ticket then being the
 * story, then the requirements' sentences in their order. Either way the stay-on-canonical-routes
 * sentence ends it (itself a requirement held by the decoy constraints, whose brief a chain's
 * introduction states). A template not yet so converted passes `ticket` whole as a string.
 */
export function subtask(
  ctx: TemplateContext,
  template: string,
  parts: {
    /** The ticket as parts in order, or whole (no story recorded) but the stay-canonical sentence. */
    ticket?: string | readonly TicketPart[];
    /** The ticket's story parts (see `TaskSchema.story`); empty parts are dropped. */
    story?: string[];
    /** A chain's step for this position: whole, or as parts (requirements state their brief). */
    brief: string | readonly TicketPart[];
    golden: GoldenStep[];
    builder: GoldenBuilder;
    answer: AnswerField[];
    g1: G1Predicate[];
    constraints?: ForbidConstraint[];
    probes?: Probe[];
    premises?: Premise[];
    consumes?: number[];
    coupling?: Coupling;
    /** The ticket's requirements the template states as data (the rest are derived from the grader). */
    requirements?: Requirement[];
  },
): GenSubtask {
  // Every task forbids the decoy families, and says so: a decoy read must never pass.
  const constraints = parts.constraints ?? forbidDecoys(ctx);
  // A template's own stay-on-canonical-routes requirement is stated, in a chain, by its introduction.
  const declared = (parts.requirements ?? []).map((r) =>
    r.kind === "stay_canonical" && r.brief === undefined
      ? { ...r, brief: chainCanonicalSentence(ctx.built.template) }
      : r,
  );
  const told = Array.isArray(parts.ticket) ? renderParts(parts.ticket as readonly TicketPart[]) : null;
  // A chain's introduction states the stay-on-canonical-routes requirement once, for every step.
  const brief = renderParts(
    typeof parts.brief === "string"
      ? [parts.brief]
      : parts.brief.filter((p) => typeof p !== "object" || p.kind !== "stay_canonical"),
    true,
  );
  for (const r of [...(told?.requirements ?? []), ...brief.requirements])
    if (!declared.some((d) => d.id === r.id)) declared.push(r);
  if (!parts.constraints)
    declared.push({
      ...stayCanonicalRequirement(ctx.grammar, constraints),
      brief: chainCanonicalSentence(ctx.built.template),
    });
  const story = told ? told.story : (parts.story ?? []).filter((p) => p.length > 0);
  const stated = declared.flatMap((r) => (r.sentence === undefined ? [] : [r.sentence]));
  const ticket = told
    ? sentence(told.text, parts.constraints ? "" : (stated.at(-1) ?? ""))
    : parts.story
      ? sentence(...story, ...stated)
      : parts.constraints
        ? String(parts.ticket ?? "")
        : `${parts.ticket ?? ""} ${stated.at(-1) ?? ""}`;
  const held = attachRequirements(declared, {
    g1: [...parts.g1, ...answerProvenance(parts.golden, parts.g1)],
    answer: parts.answer,
    constraints,
  });
  return {
    position: ctx.position,
    axis: templateAxis(template),
    difficulty: ctx.difficulty,
    consumes: parts.consumes ?? [],
    ticket,
    golden: parts.golden,
    grader: {
      answer: held.answer,
      g1: withOtherSources(ctx.built.world, held.g1, held.constraints),
      constraints: held.constraints,
      checkpoints: [],
    },
    requirements: held.requirements,
    ...(told || parts.story ? { story } : {}),
    template,
    coupling: parts.coupling ?? "none",
    brief: brief.text,
    ...(typeof parts.brief === "string" ? {} : { briefStory: brief.story }),
    probes: parts.probes ?? [],
    ...(parts.premises ? { premises: parts.premises } : {}),
    chained: (ledger) => parts.builder.chained(ledger),
  };
}

function templateAxis(template: string): GenSubtask["axis"] {
  const axis = template.split(".")[0];
  switch (axis) {
    case "auth":
    case "discovery":
    case "schema_repair":
    case "multistep":
    case "error_recovery":
    case "pagination":
    case "statefulness":
      return axis;
    default:
      throw new Error(`template id ${template} does not start with an axis`);
  }
}

/**
 * The requirement that the answer card carries `fields`, stated by `text` (by default the
 * grammar's "Report `a` and `b`."), and in a chain's step as "Report `a` and `b`.".
 *
 * @example reportRequirement(ctx.grammar, ["berth", "draft_m"]) // { kind: "report", sentence: "Tell me `berth` and `draft_m`.", … }
 */
export function reportRequirement(g: TicketGrammar, fields: readonly string[], text?: string): Requirement {
  return {
    kind: "report",
    id: "report",
    sentence: text ?? g.report(fields),
    brief: `Report ${fieldList(fields)}.`,
    fields: [...fields],
    predicates: fields.map((f) => `answer:${f}`),
  };
}

/**
 * The requirement that no call goes to the routes `constraints` forbid, stated by the grammar's
 * "Stay on the current v3 routes." (`subtask` adds it to a ticket that passes no `constraints`).
 *
 * @example stayCanonicalRequirement(ctx.grammar, forbidDecoys(ctx)).predicates // ["no_deprecated_family", "no_lookalike_family"]
 */
export function stayCanonicalRequirement(
  g: TicketGrammar,
  constraints: readonly ForbidConstraint[],
): Requirement {
  return {
    kind: "stay_canonical",
    id: "stay_canonical",
    sentence: g.stayCanonical(),
    predicates: constraints.map((c) => c.id),
  };
}

/** Claim a fresh asset for this position (one no earlier position used) and its id. */
export function claimTarget(ctx: TemplateContext): { target: SymRecord; id: string } {
  const target = ctx.state.claimAsset(ctx.rng);
  return { target, id: ctx.state.assetId(target) };
}

/** The ids of the constraints `forbidDecoys` sets (a chain's introduction states them). */
export const DECOY_CONSTRAINT_IDS: readonly string[] = ["no_deprecated_family", "no_lookalike_family"];

/** Forbid both decoy families of the world (deprecated and look-alike). */
export function forbidDecoys(ctx: TemplateContext): ForbidConstraint[] {
  const t = ctx.built.template;
  return [
    {
      kind: "forbid",
      id: DECOY_CONSTRAINT_IDS[0] as string,
      explain: `The deprecated ${t.deprecatedBase} family serves a stale nightly snapshot.`,
      url_pattern: `^${re(t.deprecatedBase)}/`,
    },
    {
      kind: "forbid",
      id: DECOY_CONSTRAINT_IDS[1] as string,
      explain: `The ${t.lookalike.segment} family is for ${t.lookalike.audience}: redacted and cached.`,
      url_pattern: `^${re(`${t.base}/${t.lookalike.segment}`)}/`,
    },
  ];
}

/** The value of a record field as a ticket may quote it (literals only). */
export function literal(record: SymRecord, name: string): string {
  const v = record[name];
  if (v === null || typeof v === "object") throw new Error(`field ${name} is not a literal`);
  return String(v);
}

/**
 * A data-flow predicate for every answer field no predicate already ties to a response: the value
 * must come from the response the golden captured it from, so typing a right value in without
 * making that call does not pass. The URL pattern is the golden's URL with its placeholders
 * widened, and any query string allowed.
 */
function answerProvenance(golden: readonly GoldenStep[], g1: readonly G1Predicate[]): G1Predicate[] {
  const covered = new Set(
    g1.flatMap((p) => (p.kind === "data_flow" && p.answer_field ? [p.answer_field] : [])),
  );
  const answer = golden.find((s) => s.op === "answer");
  if (answer?.op !== "answer") return [];
  const out: G1Predicate[] = [];
  for (const [fieldName, binding] of Object.entries(answer.fields)) {
    if (covered.has(fieldName)) continue;
    const source = [...golden].reverse().find((s) => s.op === "execute" && binding in s.capture);
    if (source?.op !== "execute") continue;
    const [path = ""] = source.request.url.split("?");
    const literals = splitAtPlaceholders(path).filter((_literal, i) => i % 2 === 0);
    const pattern = `^${literals.map(re).join("[^/?]+")}(\\?.*)?$`;
    const key = (source.capture[binding] ?? "")
      .split(".")
      .filter((seg) => !/^\d+$/.test(seg))
      .join(".");
    out.push({
      kind: "data_flow",
      id: `${fieldName}_provenance`,
      // The path as the pattern reads it: a placeholder (a value the golden bound while it ran) is any segment.
      explain: `The ${fieldName} must come from the ${source.request.method} ${literals.join("{…}")} response.`,
      from_response_url_pattern: pattern,
      from_status: source.request.method === "POST" ? 201 : 200,
      from_body_key: key,
      answer_field: fieldName,
      must_be_stored: false,
      used_in_request_url_pattern: null,
    });
  }
  return out;
}

/**
 * The asset's two canary fields (per-record values minted per trial, the usual answer fields).
 * Every world template has two; `buildWorld` refuses one without.
 */
export function canaries(a: AssetTemplate): [Canary, Canary] {
  const [c1, c2] = a.canaryFields;
  if (!c1 || !c2) throw new Error("no canary fields");
  return [c1, c2];
}

type Canary = AssetTemplate["canaryFields"][number];

/**
 * G1: an asset id must come from a page of the published listing and be used to read asset
 * `assetId` (a job that knows the asset by name or rank, not by id).
 */
export function listedIdUsed(
  built: BuiltWorld,
  predicateId: string,
  assetId: string,
  explain: string,
  /** A search route that lists the assets too (a `search` world): the id may come from either. */
  search: string | null = null,
): G1Predicate {
  const a = built.template.asset;
  const lists = search ? `(?:${re(built.routes.listAssets)}|${re(search)})` : re(built.routes.listAssets);
  return {
    kind: "data_flow",
    id: predicateId,
    explain,
    from_response_url_pattern: `^${lists}(\\?.*)?$`,
    from_status: 200,
    from_body_key: `${a.plural}.${a.idField}`,
    must_be_stored: false,
    used_in_request_url_pattern: `^${re(built.routes.asset(assetId))}$`,
    used_in_slot: { in: "path" },
  };
}

/**
 * G1 end state: the record `record` selects ends with `field` = `value`, so a write undone
 * afterwards, another value written or the right one on another record fails.
 *
 * @example fieldEndsAs("status_final", "The note must end settled.", { resource: "notes", where: { note_id: "CN-12" } }, "status", "settled")
 */
export function fieldEndsAs(
  id: string,
  explain: string,
  record: RecordSelector,
  field: string,
  value: string | ExpectedValue,
): G1Predicate {
  return { kind: "end_state", id, explain, record, expect: { is: "field", field, value } };
}

/** G1: the answered canary must come from a 200 of `url` (the read the golden took it from). */
export function canaryFromRead(
  predicateId: string,
  url: string,
  canary: Canary,
  explain: string,
): G1Predicate {
  return flowToAnswer(predicateId, url, 200, canary.name, canary.name, explain);
}

/**
 * Golden: GET `url` (with `options`, e.g. a wait), capturing `canary` (bound as `ref`) and the
 * asset's number field, and answer both under their own names (the fields `canaryAndNumber` grades).
 */
export function readCanaryAndNumber(
  gb: GoldenBuilder,
  a: AssetTemplate,
  url: string,
  canary: Canary,
  ref: string,
  options: CallOptions = {},
): GoldenStep[] {
  gb.call("GET", url, { [ref]: canary.name, num: a.numberField.name }, undefined, options);
  return gb.answer({ [canary.name]: ref, [a.numberField.name]: "num" });
}

/**
 * The answer of a one-asset read: a canary (explained as the template says where it is read) and
 * the asset's number field.
 */
export function canaryAndNumber(
  a: AssetTemplate,
  record: SymRecord,
  id: string,
  canary: Canary,
  canaryExplain: string,
): AnswerField[] {
  return [
    field(canary.name, record[canary.name] ?? null, canaryExplain),
    field(a.numberField.name, record[a.numberField.name] ?? null, `${a.numberField.description} of ${id}.`),
  ];
}
