import type {
  AnswerField,
  ExpectedValue,
  ForbidConstraint,
  G1Predicate,
  GoldenStep,
} from "../../bank/task-schema.js";
import type { SymRecord } from "../build-world.js";
import type { GoldenBuilder } from "../golden-builder.js";
import type { Coupling, GenSubtask, Probe } from "../story-state.js";
import { re } from "../story-state.js";
import type { TemplateContext } from "../subtask-template.js";

/** An answer-card field; strings compare exactly, numbers with the default tolerance. */
export function field(name: string, expected: ExpectedValue, explain: string): AnswerField {
  return { field: name, comparator: typeof expected === "number" ? "numeric" : "string", expected, explain };
}

/** Assemble a generated subtask from its parts. */
export function subtask(
  ctx: TemplateContext,
  template: string,
  parts: {
    ticket: string;
    brief: string;
    golden: GoldenStep[];
    builder: GoldenBuilder;
    answer: AnswerField[];
    g1: G1Predicate[];
    constraints?: ForbidConstraint[];
    probes?: Probe[];
    consumes?: number[];
    coupling?: Coupling;
  },
): GenSubtask {
  return {
    position: ctx.position,
    axis: templateAxis(template),
    difficulty: ctx.difficulty,
    consumes: parts.consumes ?? [],
    ticket: parts.ticket,
    golden: parts.golden,
    grader: { answer: parts.answer, g1: parts.g1, constraints: parts.constraints ?? [], checkpoints: [] },
    template,
    coupling: parts.coupling ?? "none",
    brief: parts.brief,
    probes: parts.probes ?? [],
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

/** Forbid both decoy families of the world (deprecated and look-alike). */
export function forbidDecoys(ctx: TemplateContext): ForbidConstraint[] {
  const t = ctx.built.template;
  return [
    {
      kind: "forbid",
      id: "no_deprecated_family",
      explain: `The deprecated ${t.deprecatedBase} family serves a stale nightly snapshot.`,
      url_pattern: `^${re(t.deprecatedBase)}/`,
    },
    {
      kind: "forbid",
      id: "no_lookalike_family",
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
