import type { AnswerField, ExpectedValue, G1Predicate, Requirement } from "../../bank/task-schema.js";
import { errorKeyPath } from "../../world/reply.js";
import { summarizeProblems, validateBody } from "../../world/validate-body.js";
import { dispatchValidator } from "../build-world.js";
import { GoldenBuilder } from "../golden-builder.js";
import { re } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { cap } from "../ticket-grammar.js";
import type { WorkTemplate, WorldTemplate } from "../world-template.js";
import { claimTarget, field, reportRequirement, subtask } from "./common.js";
import { claimForWork, copyReadLive, idFromCreate, workBody } from "./work-record.js";

const camel = (s: string) => s.replace(/[_-]([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * Schema repair: a create call is rejected with `422 validation_failed` naming what is missing.
 * easy: one field left out; medium: two left out, one of them a value that must be read first;
 * hard: every field sent in camelCase, so the server sees none of the required snake_case ones.
 */
function createRepair(difficulty: "easy" | "medium" | "hard"): SubtaskTemplate {
  return {
    id: `schema_repair.create-${difficulty}`,
    axis: "schema_repair",
    difficulty,
    build(ctx: TemplateContext) {
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const w = t.work;
      const { target, id, level } = claimForWork(ctx);
      const note = g.pick([
        `check before the ${g.pick(["morning", "evening", "night"])} shift`,
        `logged after ${g.pick(["inspection", "alarm", "customer call", "audit"])} ${ctx.rng.int(100, 999)}`,
        `follow-up ${ctx.rng.int(1000, 9999)}`,
      ]);
      const copyValue = target[w.copyField] ?? null;
      const full = {
        [a.idField]: id,
        [w.levelField.name]: level,
        [w.copyField]: "{{COPY}}",
        [w.noteField]: note,
      };
      const brokenBody: Record<string, unknown> =
        difficulty === "easy"
          ? { [a.idField]: id, [w.levelField.name]: level, [w.noteField]: note }
          : difficulty === "medium"
            ? { [a.idField]: id, [w.noteField]: note }
            : { [camel(a.idField)]: id, [camel(w.levelField.name)]: level, [camel(w.noteField)]: note };
      // The engine names missing fields in the order the create route requires them.
      const missing = [a.idField, w.levelField.name, w.copyField].filter((f) => !(f in brokenBody));
      const gb = new GoldenBuilder(built.world, ctx.position);
      gb.call("GET", built.routes.asset(id), { copy: w.copyField });
      gb.call(
        "POST",
        built.routes.work,
        { wid: w.idField, st: w.statusField },
        { ...full, [w.copyField]: gb.ref("copy") },
      );
      const golden = gb.answer({ [w.idField]: "wid", [w.statusField]: "st" });
      const newId = state.createWork({
        [a.idField]: id,
        [w.levelField.name]: level,
        [w.copyField]: copyValue,
        [w.noteField]: note,
      });
      const fields = [w.idField, w.statusField];
      const message = `missing required field(s): ${missing.join(", ")}`;
      const story = [
        g.opener(),
        `${g.brokenCall("POST", built.routes.work)}${g.gotError(422, "validation_failed", message)}`,
        `${g.pick(["The body it sent:", "Its payload was", "Body as sent:"])} \`${JSON.stringify(brokenBody)}\`.`,
      ];
      const kept = clientValuesKept(built.routes.work, 201, {
        [a.idField]: id,
        [w.levelField.name]: level,
        [w.noteField]: note,
      });
      const requirements: Requirement[] = [
        ...keptValues(
          kept,
          a.idField,
          difficulty === "medium"
            ? {
                key: w.levelField.name,
                values: w.levelField.values,
                text: `The ${w.noun} is ${g.pick(["a", "meant to be a"])} \`${level}\` one.`,
                brief: `It is a \`${level}\` one.`,
              }
            : undefined,
        ),
        {
          kind: "value_flow",
          id: "copy_read_live",
          sentence: g.pick([
            `The \`${w.copyField}\` must be what ${id} reports right now, not a remembered value.`,
            `Whatever goes into \`${w.copyField}\` has to be read live from ${id}.`,
            `Take \`${w.copyField}\` from a fresh read of ${id}.`,
          ]),
          brief: `Its \`${w.copyField}\` must be ${id}'s live one.`,
          predicates: ["copy_field_read_live"],
        },
        {
          kind: "value_flow",
          id: "created",
          sentence: g.pick([
            `Get the ${w.noun} created with the payload the API expects.`,
            `Repair the payload and open the ${w.noun}.`,
            `Fix the request so the ${w.noun} is actually opened.`,
          ]),
          brief: `Open the ${w.noun}.`,
          predicates: ["id_from_create"],
        },
        reportRequirement(g, fields),
      ];
      const said = (id: string) => requirements.find((r) => r.id === id);
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: [
          `The last attempt to open a ${difficulty === "medium" ? "" : `\`${level}\` `}${w.noun} for ${id} (note "${note}") got 422 (${message}).`,
          said(`${w.levelField.name}_as_meant`),
          said("created"),
          said("copy_read_live"),
          said("report"),
        ],
        golden,
        builder: gb,
        answer: [
          field(w.idField, newId, `The id the create call minted.`),
          field(w.statusField, w.initialStatus, `The status the server gives a new ${w.noun}.`),
        ],
        g1: [
          idFromCreate(
            built,
            "id_from_create",
            built.routes.work,
            "The id must come from the 201 of the create.",
          ),
          copyReadLive(built, id, built.routes.work),
          kept,
        ],
        probes: [
          {
            method: "POST",
            url: built.routes.work,
            body: brokenBody,
            token: "fresh",
            status: 422,
            error: "validation_failed",
          },
        ],
      });
    },
  };
}

/**
 * A dispatch-intake body in the camelCase its live validator wants, for asset `assetId`; the copy
 * field is left out when `copy` is undefined (as the client of enum-recovery leaves it out).
 */
function dispatchBody(
  t: WorldTemplate,
  assetId: string,
  level: string,
  crew: number | string,
  copy?: string,
) {
  return {
    [camel(t.asset.idField)]: assetId,
    [camel(t.work.levelField.name)]: level,
    ...(copy === undefined ? {} : { [camel(t.work.copyField)]: copy }),
    crewSize: crew,
  };
}

/**
 * G1: the accepted create carries the client's own values (a repair fixes the body's form, not
 * what it says): another asset, level, note or crew size breaks the ticket.
 */
function clientValuesKept(
  url: string,
  status: number,
  sent: Record<string, ExpectedValue>,
): Extract<G1Predicate, { kind: "call" }> {
  return {
    kind: "call",
    id: "client_values_kept",
    explain: "The created record must carry the values the client gave.",
    method: "POST",
    url_pattern: `^${re(url)}$`,
    status,
    body_has_keys: [],
    sent,
  };
}

/**
 * The requirements `kept` (a `client_values_kept` call) holds: the record the create names (its
 * first sent value, as the requirement derived from it would be), and, when the ticket states it,
 * the value the client meant at `stated.key` (stated by `stated.text`; another of `stated.values`
 * is the mutant's value).
 */
function keptValues(
  kept: Extract<G1Predicate, { kind: "call" }>,
  idKey: string,
  stated?: { key: string; values: readonly string[]; text: string; brief: string },
): Requirement[] {
  const sent = kept.sent ?? {};
  const call = {
    method: "POST",
    url_pattern: kept.url_pattern,
    ...(kept.status !== undefined ? { status: kept.status } : {}),
    sent,
  };
  const out: Requirement[] = [
    {
      kind: "value_written",
      id: kept.id,
      predicates: [kept.id],
      call,
      key: idKey,
      value: sent[idKey] ?? null,
      alternatives: [],
    },
  ];
  if (stated) {
    const value = sent[stated.key] ?? null;
    out.push({
      kind: "value_written",
      id: `${stated.key}_as_meant`,
      sentence: stated.text,
      brief: stated.brief,
      predicates: [kept.id],
      call,
      key: stated.key,
      value,
      alternatives: stated.values.filter((v) => v !== value),
    });
  }
  return out;
}

/** What both dispatch-intake templates report: the id the intake minted and the new record's status. */
function dispatchedAnswer(w: WorkTemplate, wid: ExpectedValue): AnswerField[] {
  return [
    field(w.idField, wid, "The id the dispatch intake minted."),
    field(w.statusField, w.initialStatus, `The status of the new ${w.noun}.`),
  ];
}

/**
 * Schema repair against the live validator of the dispatch intake, whose published spec documents
 * its camelCase contract: a client built on the old snake_case create contract gets 422 naming each
 * wrong name (camelCase expected) and the missing crew size. easy: names only; medium: the crew
 * size also goes as a string (`invalid_type`, shown once the names are right); hard: and the level
 * in upper case (`invalid_enum` with the allowed values). Every message quoted is computed by the
 * engine's own validator.
 */
function liveValidator(difficulty: "easy" | "medium" | "hard"): SubtaskTemplate {
  return {
    id: `schema_repair.live-validator-${difficulty}`,
    axis: "schema_repair",
    difficulty,
    build(ctx: TemplateContext) {
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const w = t.work;
      const validator = dispatchValidator(t);
      const url = `${built.routes.work}/dispatch`;
      const { target, id, level } = claimForWork(ctx);
      const crew = ctx.rng.int(2, 6);
      const sentLevel = difficulty === "hard" ? level.toUpperCase() : level;
      const sentCrew = difficulty === "easy" ? crew : String(crew);
      const snake = {
        [a.idField]: id,
        [w.levelField.name]: sentLevel,
        [w.copyField]: "…",
        crew_size: sentCrew,
      };
      const first = summarizeProblems(validateBody(validator, { ...snake, [w.copyField]: "x" }, "create"));
      const gb = new GoldenBuilder(built.world, ctx.position);
      // The second round only needs the names right to show the type/enum problems; the live value
      // is read once the body is otherwise accepted.
      // Round one is the body of the old contract (what a chain's brief, which quotes
      // no error, starts from); its 422 names every field the live validator wants. The type and
      // enum mistakes of the ticket's body are the client's; a careful run never makes them.
      gb.call("POST", url, {}, { [a.idField]: id, [w.levelField.name]: level });
      gb.call("GET", built.routes.asset(id), { copy: w.copyField });
      gb.call(
        "POST",
        url,
        { wid: w.idField, st: w.statusField },
        dispatchBody(t, id, level, crew, gb.ref("copy")),
      );
      const wid = state.createWork(workBody(built, id, level, target[w.copyField] ?? null), {
        storedAs: camel,
      });
      const golden = gb.answer({ [w.idField]: "wid", [w.statusField]: "st" });
      const fields = [w.idField, w.statusField];
      // The hard ticket quotes neither the body nor the validator's message: which names the
      // validator wants is for the spec and its terse 422 to tell.
      const hard = difficulty === "hard";
      const story = [
        g.opener(),
        `${cap(g.system())} opens a \`${level}\` ${w.noun} for ${id} with a crew of ${crew} through \`POST ${url}\`, built as the old create contract had the body, plus the \`crew_size\` the form asks for${hard ? ", with the level in capitals and the crew size as text." : ":"}`,
        hard ? "" : `\`${JSON.stringify({ ...snake, [w.copyField]: `<${id}'s live ${w.copyField}>` })}\`.`,
        `It gets ${hard ? g.quoteError(422, "validation_failed") : g.quoteError(422, "validation_failed", first)}.`,
        g.pick([
          "The published spec has the intake's current contract, which the client predates.",
          "The intake's current contract is in the published spec; our client still speaks the old one.",
        ]),
        difficulty !== "easy"
          ? g.pick([
              "More than one round of fixes is likely.",
              "Fixing the names may not be the last problem.",
            ])
          : "",
      ];
      const requirements: Requirement[] = [
        {
          kind: "value_flow",
          id: "created",
          sentence: `Get that ${w.noun} opened, carrying ${id}'s live \`${w.copyField}\`.`,
          brief: `Open a \`${level}\` ${w.noun} for ${id} (crew ${crew}, live \`${w.copyField}\`) through \`POST ${url}\`.`,
          predicates: ["id_from_dispatch", "copy_field_read_live"],
        },
        reportRequirement(g, fields),
      ];
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: [
          `The validator of \`POST ${url}\` (documented in the spec) rejects the old snake_case body with 422.`,
          ...requirements,
        ],
        golden,
        builder: gb,
        answer: dispatchedAnswer(w, wid),
        g1: [
          idFromCreate(built, "id_from_dispatch", url, "The id must come from the accepted create."),
          copyReadLive(built, id, url, camel(w.copyField)),
          clientValuesKept(url, 201, {
            [camel(a.idField)]: id,
            [camel(w.levelField.name)]: level,
            crewSize: crew,
          }),
        ],
        probes: [
          {
            method: "POST",
            url,
            body: { ...snake, [w.copyField]: "x" },
            token: "fresh",
            status: 422,
            error: "validation_failed",
            ...(hard ? {} : { message: first }),
          },
        ],
        // The ticket says the spec has the current contract: every field the repaired body sends.
        premises: [
          {
            kind: "spec_body",
            method: "POST",
            path: url,
            fields: Object.keys(dispatchBody(t, id, level, crew, "x")),
          },
        ],
      });
    },
  };
}

/**
 * Schema repair whose recovery reads the validator's error: a client sends the dispatch intake a
 * body with the level spelled in upper case (medium), or also the crew size as a string (hard). The
 * ticket quotes the body and the error code but not the message, and asks for the validator's
 * answer: the allowed levels are read off the live 422 (`invalid_enum` with `allowed`, beside
 * `invalid_type` with `expected`). The golden sends the body as the client did, takes the level
 * from the error's `allowed` list, and resends the repaired body.
 */
function enumRecovery(difficulty: "medium" | "hard"): SubtaskTemplate {
  return {
    id: `schema_repair.enum-recovery-${difficulty}`,
    axis: "schema_repair",
    difficulty,
    build(ctx: TemplateContext) {
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const w = t.work;
      const validator = dispatchValidator(t);
      const url = `${built.routes.work}/dispatch`;
      const { target, id } = claimTarget(ctx);
      const levels = w.levelField.values;
      const level = g.pick(levels.filter((v) => v.toUpperCase() !== v));
      const crew = ctx.rng.int(2, 6);
      const sentCrew = difficulty === "hard" ? String(crew) : crew;
      // The client's body leaves the live value out; the repaired one carries it.
      const sent = dispatchBody(t, id, level.toUpperCase(), sentCrew);
      const problems = validateBody(validator, sent, "create");
      if (!problems.some((p) => p.code === "invalid_enum"))
        throw new Error(`${this.id}: the broken body has no invalid_enum problem`);
      const errorsPath = errorKeyPath(built.world.errors, "errors");
      const gb = new GoldenBuilder(built.world, ctx.position);
      // The body as the client sent it; the level the validator accepts is read from its answer.
      // Whichever problem lists allowed values (the order of problems follows the body's keys, which
      // a transport may reorder), the level's place in that list.
      const allowedAt = `${errorsPath}.allowed.${levels.indexOf(level)}`;
      gb.call("POST", url, { lvl: allowedAt }, sent);
      gb.call("GET", built.routes.asset(id), { copy: w.copyField });
      gb.call(
        "POST",
        url,
        { wid: w.idField, st: w.statusField },
        dispatchBody(t, id, gb.ref("lvl"), crew, gb.ref("copy")),
      );
      const wid = state.createWork(workBody(built, id, level, target[w.copyField] ?? null), {
        storedAs: camel,
      });
      const golden = gb.answer({ [w.idField]: "wid", [w.statusField]: "st" });
      const fields = [w.idField, w.statusField];
      const story = [
        g.opener(),
        `${g.brokenCall("POST", url)}${g.gotError(422, "validation_failed")}`,
        `${g.pick(["The body it sent:", "Its payload was", "Body as sent:"])} \`${JSON.stringify(sent)}\`.`,
        `It also left out \`${camel(w.copyField)}\`.`,
        g.pick([
          "The level came out of the planning sheet in capitals; the service has its own spelling for it.",
          "The level is typed in capitals by the planners; what the intake accepts is up to the intake.",
          "Nobody remembers how the intake spells the level; the service's own answer is the authority.",
        ]),
        difficulty === "hard"
          ? g.pick(["The crew size may not be right either.", "The service may object to other fields too."])
          : "",
      ];
      const requirements: Requirement[] = [
        {
          kind: "value_flow",
          id: "copy_read_live",
          sentence: `\`${camel(w.copyField)}\` must be ${id}'s live \`${w.copyField}\`.`,
          brief: `Add ${id}'s live \`${w.copyField}\` as \`${camel(w.copyField)}\`.`,
          predicates: ["copy_field_read_live"],
        },
        {
          kind: "value_flow",
          id: "level_as_validator_allows",
          sentence: `Send it again, read what the validator says, and get the ${w.noun} opened with the same meaning.`,
          brief: `Open the ${w.noun}, spelling the level as the validator's 422 allows.`,
          predicates: ["level_from_validator"],
        },
        reportRequirement(g, fields),
      ];
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: [
          `The client of \`POST ${url}\` sends \`${JSON.stringify(sent)}\` for ${id}'s ${w.noun}, without \`${camel(w.copyField)}\`.`,
          difficulty === "hard" && "The validator takes the crew as a number.",
          ...requirements,
        ],
        golden,
        builder: gb,
        answer: dispatchedAnswer(w, wid),
        g1: [
          idFromCreate(built, "id_from_dispatch", url, "The id must come from the accepted create."),
          {
            kind: "data_flow",
            id: "level_from_validator",
            explain: "The level sent must be one the validator's 422 listed as allowed.",
            from_response_url_pattern: `^${re(url)}$`,
            from_status: 422,
            from_body_key: allowedAt,
            must_be_stored: false,
            used_in_request_url_pattern: `^${re(url)}$`,
            used_in_slot: { in: "body", key: camel(w.levelField.name) },
          },
          copyReadLive(built, id, url, camel(w.copyField)),
          clientValuesKept(url, 201, { [camel(t.asset.idField)]: id, crewSize: crew }),
        ],
        probes: [
          {
            method: "POST",
            url,
            body: sent,
            token: "fresh",
            status: 422,
            error: "validation_failed",
          },
        ],
      });
    },
  };
}

export const SCHEMA_REPAIR_TEMPLATES: readonly SubtaskTemplate[] = [
  createRepair("easy"),
  liveValidator("easy"),
  createRepair("medium"),
  liveValidator("medium"),
  enumRecovery("medium"),
  createRepair("hard"),
  liveValidator("hard"),
  enumRecovery("hard"),
];
