import type { G1Predicate, Requirement } from "../../bank/task-schema.js";
import { isRecordRef } from "../../grade/final-state.js";
import { vaultSentence } from "../../world/credential.js";
import { GoldenBuilder, readFromListing } from "../golden-builder.js";
import { re } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import type { AssetTemplate } from "../world-template.js";
import {
  canaries,
  canaryAndNumber,
  canaryFromRead,
  claimTarget,
  field,
  fieldEndsAs,
  literal,
  readCanaryAndNumber,
  reportRequirement,
  subtask,
} from "./common.js";
import { claimForWork, copyReadLive, idFromCreate, workBody } from "./work-record.js";
import { workflowApproval } from "./workflow-states.js";

/**
 * Error recovery. easy: an update sent with the wrong verb gets `405 method_not_allowed` (the
 * `Allow` header says which verb works); medium: the same call also used the dead vault token, so
 * the first error hides the second; hard: the record is known only by name, so the path is wrong
 * too, or (coupled) the record is a work item an earlier position left in a variable.
 */
function wrongVerb(difficulty: "easy" | "medium" | "hard"): SubtaskTemplate {
  return {
    id: `error_recovery.wrong-verb-${difficulty}`,
    axis: "error_recovery",
    difficulty,
    build(ctx: TemplateContext) {
      if (difficulty === "hard" && ctx.coupled) {
        const planted = ctx.state.takePlanted(ctx.rng);
        if (planted) return closePlanted(ctx, planted, this.id);
      }
      // A workflow world's refused update is an illegal transition (issue 16).
      const onWorkflow = workflowApproval(ctx, this.id);
      if (onWorkflow) return onWorkflow;
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const other = t.updateMethod === "PATCH" ? "PUT" : "PATCH";
      const { target, id } = claimTarget(ctx);
      const name = literal(target, a.nameField);
      const current = literal(target, a.enumField.name);
      const value = g.pick(a.enumField.values.filter((v) => v !== current));
      const [, c2] = canaries(a);
      const url = built.routes.asset(id);
      const gb = new GoldenBuilder(built.world, ctx.position);
      const brokenUrl = difficulty === "hard" ? built.routes.asset(encodeURIComponent(name)) : url;
      if (difficulty === "hard") {
        gb.readSpec();
        const index = state.assets.indexOf(target);
        readFromListing(gb, built.listPages([index]), { id: [index, a.idField] });
        gb.call(
          t.updateMethod,
          built.routes.asset(gb.ref("id")),
          { c2: c2.name, num: a.numberField.name },
          { [a.enumField.name]: value },
        );
      } else {
        gb.call(t.updateMethod, url, { c2: c2.name, num: a.numberField.name }, { [a.enumField.name]: value });
      }
      target[a.enumField.name] = value;
      const golden = gb.answer({ [c2.name]: "c2", [a.numberField.name]: "num" });
      const fields = [c2.name, a.numberField.name];
      const body = JSON.stringify({ [a.enumField.name]: value });
      const who = difficulty === "hard" ? `"${name}"` : id;
      const opener = g.opener();
      const wanted: Requirement = {
        kind: "value_written",
        id: "value_switched",
        sentence: g.pick([
          `We need ${who}'s \`${a.enumField.name}\` switched to \`${value}\`.`,
          `${who} has to move to \`${a.enumField.name}\` = \`${value}\` today.`,
          `Please get ${who} onto \`${value}\` (field \`${a.enumField.name}\`).`,
        ]),
        brief: `Set ${who}'s \`${a.enumField.name}\` to \`${value}\`.`,
        predicates: ["update_applied", "change_sticks"],
        call: { method: t.updateMethod, url_pattern: `^${re(url)}$`, status: 200 },
        key: a.enumField.name,
        value,
        alternatives: a.enumField.values.filter((v) => v !== value),
      };
      const story = [
        `${g.brokenCall(other, brokenUrl)}${g.gotError(405, "method_not_allowed")}`,
        `The body was \`${body}\`.`,
        difficulty === "medium" ? vaultSentence(ctx.built.world.auth) : "",
        difficulty === "hard"
          ? `The path used the ${a.noun}'s display name because that is all the request form had.`
          : "",
      ];
      const fromResponse: Requirement = {
        kind: "value_flow",
        id: "values_from_update",
        sentence: g.pick([
          "Make the change stick and read the values off the successful response.",
          "Get the update through, then use what the API sends back.",
          "Recover from the error, apply the change, and check the result.",
        ]),
        brief: "Use the values of the successful response.",
        predicates: [`${c2.name}_after_update`, "change_sticks"],
      };
      const report = reportRequirement(g, fields);
      const briefStory = `A ${other} got 405${difficulty === "medium" ? ", sent with the vault's stale token" : ""}.`;
      const g1: G1Predicate[] = [
        {
          kind: "call",
          id: "update_applied",
          explain: `The update must go through with ${t.updateMethod}.`,
          method: t.updateMethod,
          url_pattern: `^${re(url)}$`,
          status: 200,
          body_has_keys: [],
          sent: { [a.enumField.name]: value },
        },
        canaryFromRead(
          `${c2.name}_after_update`,
          url,
          c2,
          `The ${c2.name} must come from ${id}'s canonical route.`,
        ),
        changeSticks(a, id, value),
      ];
      // The verb is checked before the token, so even the stale-token call answers 405 first.
      const probes = [
        {
          method: other,
          url: brokenUrl,
          body: { [a.enumField.name]: value },
          token: difficulty === "medium" ? ("stale" as const) : ("fresh" as const),
          status: 405,
          error: "method_not_allowed",
        },
      ];
      return subtask(ctx, this.id, {
        ticket: [opener, wanted, ...story, fromResponse, report],
        brief: [wanted, briefStory, fromResponse, report],
        golden,
        builder: gb,
        answer: canaryAndNumber(a, target, id, c2, `${c2.description} of ${id}.`),
        g1,
        probes,
      });
    },
  };
}

/** The record ends with the value the ticket asked for (agent audit: a write undone afterwards passed). */
function changeSticks(a: AssetTemplate, id: string, value: string): G1Predicate {
  const record = { resource: a.plural, where: { [a.idField]: id } };
  return fieldEndsAs(
    "change_sticks",
    `${id}'s ${a.enumField.name} must end as ${value}.`,
    record,
    a.enumField.name,
    value,
  );
}

/**
 * Hard, coupled: close the work record an earlier position left in a variable; 405 on the way.
 * What it reports comes from its own successful update of that record (nobody read the record
 * since it was created), so a run that skips the update cannot pass on earlier values.
 */
function closePlanted(
  ctx: TemplateContext,
  planted: { position: number; variable: string; scope: "local" | "global"; workIndex: number },
  id: string,
) {
  const { built, state, grammar: g } = ctx;
  const t = built.template;
  const w = t.work;
  const other = t.updateMethod === "PATCH" ? "PUT" : "PATCH";
  const record = state.work[planted.workIndex];
  if (!record) throw new Error("planted work record is missing");
  const final = w.nextStatuses[w.nextStatuses.length - 1] ?? "closed";
  const plantedId = record[w.idField] ?? null;
  const copyValue = record[w.copyField] ?? null;
  const gb = new GoldenBuilder(built.world, ctx.position);
  gb.call(
    t.updateMethod,
    built.routes.workItem(`{{${planted.variable}}}`),
    { copy: w.copyField },
    { [w.statusField]: final },
  );
  record[w.statusField] = final;
  const golden = gb.answer({ [w.copyField]: "copy" });
  const itemRe = `^${re(built.routes.work)}/[^/]+$`;
  const opener = g.opener();
  const closed: Requirement = {
    kind: "value_written",
    id: "planted_closed",
    sentence: g.pick([
      `The ${w.noun} whose id is in the ${planted.scope} variable \`${planted.variable}\` is done and has to be set to \`${final}\`.`,
      `Close out the ${w.noun} kept in ${planted.scope} variable \`${planted.variable}\`: its \`${w.statusField}\` should become \`${final}\`.`,
    ]),
    brief: `Set the ${w.noun} in \`${planted.variable}\` to \`${final}\`.`,
    predicates: ["closed", ...(isRecordRef(plantedId) ? ["close_sticks"] : [])],
    call: { method: t.updateMethod, url_pattern: itemRe, status: 200, target: plantedId },
    key: w.statusField,
    value: final,
    alternatives: w.nextStatuses.filter((v) => v !== final),
  };
  const broken = `${g.brokenCall(other, `${built.routes.work}/{${planted.variable}}`)}${g.gotError(405, "method_not_allowed")}`;
  const copied: Requirement = {
    kind: "value_flow",
    id: "copy_from_update",
    sentence: g.pick([
      `Once it goes through, the closing crew wants the \`${w.copyField}\` the record carries, as the API answers the update.`,
      `Read the \`${w.copyField}\` it was opened with off the successful update's answer.`,
    ]),
    brief: `Take its \`${w.copyField}\` from the update's answer.`,
    predicates: ["copy_from_close"],
  };
  const report = reportRequirement(g, [w.copyField], `Report that \`${w.copyField}\`.`);
  return subtask(ctx, id, {
    ticket: [opener, closed, broken, copied, report],
    brief: [closed, `A ${other} got 405.`, copied, report],
    golden,
    builder: gb,
    answer: [
      field(
        w.copyField,
        copyValue,
        `The ${w.copyField} position ${planted.position}'s ${w.noun} carries, from the closing update.`,
      ),
    ],
    g1: [
      {
        kind: "call",
        id: "closed",
        explain: `The planted ${w.noun} must be moved to ${final} with ${t.updateMethod}.`,
        method: t.updateMethod,
        url_pattern: itemRe,
        target: plantedId,
        status: 200,
        body_has_keys: [],
        sent: { [w.statusField]: final },
      },
      {
        kind: "data_flow",
        id: "copy_from_close",
        explain: `The ${w.copyField} must come from the planted ${w.noun}'s successful update.`,
        from_response_url_pattern: `^${re(built.routes.work)}/[^/]+$`,
        from_status: 200,
        from_body_key: w.copyField,
        answer_field: w.copyField,
        must_be_stored: false,
        used_in_request_url_pattern: null,
      },
      // The planted record ends closed (agent audit: an update undone afterwards passed).
      ...(isRecordRef(plantedId)
        ? [
            fieldEndsAs(
              "close_sticks",
              `The planted ${w.noun} must end as ${final}.`,
              plantedId.$record,
              w.statusField,
              final,
            ),
          ]
        : []),
    ],
    consumes: [planted.position],
    coupling: "value",
    // The quoted call, on the record the variable holds (a premise, and the call an agent blind to
    // error recovery retries as it is).
    probes: [
      {
        method: other,
        url: built.routes.workItem(`{{${planted.variable}}}`),
        body: { [w.statusField]: final },
        token: "fresh",
        status: 405,
        error: "method_not_allowed",
      },
    ],
  });
}

/**
 * Easy: a read is rate limited (429 with Retry-After); the client retried at once and was refused
 * again. Honour the wait on the logical clock (`x-apiflow-wait`, as the 429 hint says) and retry.
 */
function rateLimited(difficulty: "easy" | "medium"): SubtaskTemplate {
  return {
    id: difficulty === "easy" ? "error_recovery.rate-limited" : `error_recovery.rate-limited-${difficulty}`,
    axis: "error_recovery",
    difficulty,
    build(ctx) {
      const noun = ctx.state.claimSlot("throttle");
      if (noun === null) return wrongVerb(difficulty).build(ctx);
      const { built, grammar: g } = ctx;
      const a = built.template.asset;
      const { target, id } = claimTarget(ctx);
      const url = `${built.routes.asset(id)}/${noun}`;
      const route = built.world.routes.find((r) => r.path.endsWith(`/${noun}`) && r.method === "GET");
      const wait = route?.throttle?.retry_after ?? 5;
      const [c1] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position);
      gb.call("GET", url);
      const golden = readCanaryAndNumber(gb, a, url, c1, "c1", { wait });
      const fields = [c1.name, a.numberField.name];
      const story = [
        g.opener(),
        // Medium quotes the code only: how long to wait, and how to wait, are in the live 429.
        difficulty === "easy"
          ? `${g.brokenCall("GET", url)}${g.gotError(429, "rate_limited", `too many requests to this route; retry after ${wait} s`)}`
          : `${g.brokenCall("GET", url)}${g.gotError(429, "rate_limited")}`,
        g.pick([
          "It retries immediately, gets the same 429, and gives up.",
          "Its retry loop hammers the route straight away and every retry is refused.",
        ]),
      ];
      // The world refuses a retry before the wait is over: the read that succeeds holds the wait.
      const retried: Requirement = {
        kind: "value_flow",
        id: "read_after_wait",
        sentence: g.pick([
          "Retry the way the API asks you to and get the read through.",
          `Recover from the rate limit properly and read ${id}'s ${noun}.`,
        ]),
        brief: `Honour the wait, then retry \`GET ${url}\`.`,
        predicates: [`${c1.name}_after_wait`],
      };
      const report = reportRequirement(g, fields);
      return subtask(ctx, this.id, {
        ticket: [...story, retried, report],
        brief: [`\`GET ${url}\` is rate limited (429, Retry-After).`, retried, report],
        golden,
        builder: gb,
        answer: canaryAndNumber(a, target, id, c1, `${c1.description} of ${id}, from the retried read.`),
        g1: [canaryFromRead(`${c1.name}_after_wait`, url, c1, "The retried read must succeed.")],
        probes: [{ method: "GET", url, token: "fresh", status: 429, error: "rate_limited" }],
      });
    },
  };
}

/**
 * Medium: a create goes through a queue that fails it once — `transient` (503 transient_failure,
 * healed by retrying with an Idempotency-Key the ticket names) or `partial` (503 partial_write: the
 * write is staged, and a resend with `"confirm": true` commits it).
 */
function flakyCreate(kind: "transient" | "partial", difficulty: "medium" | "hard"): SubtaskTemplate {
  const base = `error_recovery.${kind === "transient" ? "idempotent-retry" : "partial-write"}`;
  return {
    id: difficulty === "medium" ? base : `${base}-${difficulty}`,
    axis: "error_recovery",
    difficulty,
    build(ctx: TemplateContext) {
      // Hard error-recovery slots are where the storyline plans a consumer (as version-conflict).
      if (difficulty === "hard" && ctx.coupled) {
        const planted = ctx.state.takePlanted(ctx.rng);
        if (planted) return closePlanted(ctx, planted, "error_recovery.wrong-verb-hard");
      }
      const noun = ctx.state.claimSlot(kind);
      if (noun === null) return wrongVerb(difficulty).build({ ...ctx, coupled: false });
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const w = t.work;
      const { target, id, level } = claimForWork(ctx);
      const url = `${built.routes.work}/${noun}`;
      const key = `chg-${ctx.rng.int(10000, 99999)}-${noun}`;
      const gb = new GoldenBuilder(built.world, ctx.position);
      const body = workBody(built, id, level, gb.ref("copy"));
      if (kind === "transient") {
        // The gateway fails before it reads the body: the first attempt is the ticket's own call.
        gb.call("POST", url, {}, { [a.idField]: id, [w.levelField.name]: level });
        gb.call("GET", built.routes.asset(id), { copy: w.copyField });
        gb.call("POST", url, { wid: w.idField, st: w.statusField }, body, {
          headers: { "Idempotency-Key": key },
        });
      } else {
        gb.call("GET", built.routes.asset(id), { copy: w.copyField });
        gb.call("POST", url, {}, body);
        gb.call(
          "POST",
          url,
          { wid: w.idField, st: w.statusField, copy2: w.copyField },
          { ...body, confirm: true },
        );
      }
      const wid = state.createWork(workBody(built, id, level, target[w.copyField] ?? null));
      // A partial write commits what was staged: the copy it committed is reported from the commit.
      const answerFields: Record<string, string> = { [w.idField]: "wid", [w.statusField]: "st" };
      if (kind === "partial") answerFields[w.copyField] = "copy2";
      const golden = gb.answer(answerFields);
      const fields = Object.keys(answerFields);
      // Hard quotes less: the transient failure's code without its message; the partial write
      // only as "a 5xx" (what it means, and how to finish it, is in the live 503).
      const error =
        kind === "transient"
          ? difficulty === "medium"
            ? g.gotError(
                503,
                "transient_failure",
                "the upstream store did not answer; the write may or may not have been applied",
              )
            : g.gotError(503, "transient_failure")
          : difficulty === "medium"
            ? g.gotError(503, "partial_write")
            : g.pick([" fails with a 5xx.", " comes back with a server error."]);
      const opener = g.opener();
      const wanted: Requirement = {
        kind: "value_flow",
        id: "opened_with_live_copy",
        sentence: `We need a \`${level}\` ${w.noun} for ${id}, carrying ${id}'s live \`${w.copyField}\`, opened through the ${noun} ${kind === "transient" ? "gateway" : "queue"}.`,
        brief: `Open a \`${level}\` ${w.noun} for ${id} (live \`${w.copyField}\`) through \`POST ${url}\`.`,
        predicates: ["copy_field_read_live", `answer:${w.idField}`],
      };
      const story = [
        kind === "transient"
          ? `${g.brokenCall("POST", url)} with \`${JSON.stringify({ [a.idField]: id, [w.levelField.name]: level })}\`${error}`
          : `${g.brokenCall("POST", url)}${error}`,
        // The world heals a transient failure for any key: the change's own key is the ticket's
        // requirement (`keyed_retry`), held on the committing call's header.
        kind === "transient"
          ? "Our change process gives each change an idempotency key for its retried writes."
          : g.pick([
              "Nobody knows whether the record exists now.",
              "The job noted the failure and moved on, so the record may be half-written.",
            ]),
      ];
      const once: Requirement = {
        kind: "end_state",
        id: "committed_once",
        sentence: g.pick([
          `Make sure exactly one ${w.noun} ends up committed.`,
          `Finish the write so the ${w.noun} really exists, once.`,
        ]),
        brief: `Exactly one ${w.noun} committed.`,
        predicates: ["one_committed", "id_from_commit"],
        record: state.countScope(wid),
        expect: { is: "count", min: 1, max: 1 },
      };
      const keyed: Requirement[] =
        kind === "transient"
          ? [
              {
                kind: "value_written",
                id: "keyed_retry",
                sentence: `The key for this change is \`${key}\`: a retried write must carry it as its \`Idempotency-Key\`.`,
                brief: `Retry with \`Idempotency-Key: ${key}\`.`,
                predicates: ["committed_with_key"],
                call: { method: "POST", url_pattern: `^${re(url)}$`, status: 201 },
                key: "Idempotency-Key",
                in: "header",
                value: key,
                alternatives: [key.replace(/^chg-(\d+)/, (_, n: string) => `chg-${Number(n) + 1}`)],
              },
            ]
          : [];
      const report = reportRequirement(g, fields);
      const failed = `It fails once with 503 ${kind === "transient" ? `${g.code("transient_failure")} (retried with an Idempotency-Key it heals)` : difficulty === "medium" ? `${g.code("partial_write")} (a staged write waits for a confirm)` : "(the error says how to finish the write)"}.`;
      return subtask(ctx, this.id, {
        ticket: [opener, wanted, ...story, ...keyed, once, report],
        brief: [wanted, failed, ...keyed, once, report],
        golden,
        builder: gb,
        answer: [
          field(w.idField, wid, "The id of the committed record."),
          field(w.statusField, w.initialStatus, `The status of the new ${w.noun}.`),
          ...(kind === "partial"
            ? [
                field(
                  w.copyField,
                  target[w.copyField] ?? null,
                  `The ${w.copyField} the committed record carries.`,
                ),
              ]
            : []),
        ],
        g1: [
          idFromCreate(built, "id_from_commit", url, "The id must come from the committed write."),
          copyReadLive(built, id, url),
          {
            kind: "end_state",
            id: "one_committed",
            explain: `Exactly one ${w.noun} for ${id} at level ${level} is committed at the end.`,
            record: state.countScope(wid),
            expect: { is: "count", min: 1, max: 1 },
          },
          ...(kind === "transient"
            ? [
                {
                  kind: "call_count" as const,
                  id: "committed_with_key",
                  explain: `The write that commits must carry the change's idempotency key, ${key}.`,
                  call: {
                    method: "POST",
                    url_pattern: `^${re(url)}$`,
                    status: 201,
                    headers: { "Idempotency-Key": key },
                  },
                  min: 1,
                },
              ]
            : []),
        ],
        probes: [
          {
            method: "POST",
            url,
            body:
              kind === "transient"
                ? { [a.idField]: id, [w.levelField.name]: level }
                : workBody(built, id, level, "probe"),
            token: "fresh",
            status: 503,
            ...(kind === "partial" && difficulty === "hard"
              ? {}
              : { error: kind === "transient" ? "transient_failure" : "partial_write" }),
          },
        ],
      });
    },
  };
}

/**
 * Hard: an update uses optimistic concurrency (the body carries the `version` read); another writer
 * changes the record first, so the update gets 409 version_conflict. Re-read, then resend with the
 * new version. Coupled: closes a planted record instead (like `wrong-verb-hard`).
 */
function versionConflict(difficulty: "medium" | "hard"): SubtaskTemplate {
  return {
    id:
      difficulty === "hard"
        ? "error_recovery.version-conflict"
        : `error_recovery.version-conflict-${difficulty}`,
    axis: "error_recovery",
    difficulty,
    build(ctx) {
      // Only the hard slot consumes a planted value (the storyline plans coupling by slot).
      if (ctx.coupled && difficulty === "hard") {
        const planted = ctx.state.takePlanted(ctx.rng);
        if (planted) return closePlanted(ctx, planted, "error_recovery.wrong-verb-hard");
      }
      const noun = ctx.state.claimSlot("conflict");
      if (noun === null) return wrongVerb(difficulty).build({ ...ctx, coupled: false });
      const { built, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const { target, id } = claimTarget(ctx);
      const url = `${built.routes.asset(id)}/${noun}`;
      const current = literal(target, a.enumField.name);
      const value = g.pick(a.enumField.values.filter((v) => v !== current));
      const [, c2] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position);
      // Every record starts at version 1 (the read shows it); the re-read's version is captured.
      gb.call("GET", url);
      gb.call(t.updateMethod, url, {}, { [a.enumField.name]: value, version: 1 });
      gb.call("GET", url, { v2: "version", note: built.conflictField, c2: c2.name });
      gb.call(t.updateMethod, url, {}, { [a.enumField.name]: value, version: gb.ref("v2") });
      target[a.enumField.name] = value;
      const golden = gb.answer({ [built.conflictField]: "note", [c2.name]: "c2" });
      const updateCall = { method: t.updateMethod, url_pattern: `^${re(url)}$`, status: 200 };
      const opener = g.opener();
      const wanted: Requirement = {
        kind: "value_written",
        id: "value_switched",
        sentence: `${id}'s \`${a.enumField.name}\` must become \`${value}\` through its ${noun} route.`,
        brief: `Set ${id}'s \`${a.enumField.name}\` to \`${value}\` via \`${t.updateMethod} ${url}\`.`,
        predicates: ["update_applied", "change_sticks"],
        call: updateCall,
        key: a.enumField.name,
        value,
        alternatives: a.enumField.values.filter((v) => v !== value),
      };
      const story = [
        `${g.brokenCall(t.updateMethod, url)}${g.gotError(409, "version_conflict")}`,
        g.pick([
          "Someone else is editing the same record tonight.",
          "Another tool changed the record between our read and our write.",
        ]),
      ];
      // Every record starts at version 1 and the other writer's change makes it 2: the world
      // refuses an update carrying any other, so the update that succeeds holds it.
      const currentVersion: Requirement = {
        kind: "value_written",
        id: "current_version_sent",
        sentence:
          difficulty === "hard"
            ? g.pick([
                "Do not overwrite their change blindly: work with the current version and get our change in.",
                "Resolve the conflict the way the API expects and apply the change.",
              ])
            : g.pick([
                "Read the record again, take the `version` it shows now, and resend our change with that version.",
                "Re-read it to get the current `version`, then send our change again carrying that version.",
              ]),
        brief:
          difficulty === "hard"
            ? "Get our change in over theirs the way the API expects."
            : "Re-read it and resend with the current `version`.",
        predicates: ["update_applied"],
        call: updateCall,
        key: "version",
        value: 2,
        alternatives: [1],
      };
      const report: Requirement = {
        kind: "report",
        id: "report",
        sentence: `Report the \`${built.conflictField}\` the other writer left and ${id}'s \`${c2.name}\`, as the current record shows them.`,
        brief: `Report the \`${built.conflictField}\` they left and \`${c2.name}\` from the current record.`,
        fields: [built.conflictField, c2.name],
        predicates: [`answer:${built.conflictField}`, `answer:${c2.name}`, "reread_version_used"],
      };
      return subtask(ctx, this.id, {
        ticket: [opener, wanted, ...story, currentVersion, report],
        brief: [
          wanted,
          `It got 409 ${g.code("version_conflict")}: another writer got there first.`,
          currentVersion,
          report,
        ],
        golden,
        builder: gb,
        answer: [
          field(
            built.conflictField,
            `${noun} adjusted by the night desk`,
            "What the other writer left, seen on re-reading.",
          ),
          field(c2.name, target[c2.name] ?? null, `${c2.description} of ${id}.`),
        ],
        g1: [
          {
            kind: "call",
            id: "update_applied",
            explain: `The change must go through with the current version.`,
            method: t.updateMethod,
            url_pattern: `^${re(url)}$`,
            status: 200,
            body_has_keys: [],
            sent: { [a.enumField.name]: value },
          },
          changeSticks(a, id, value),
          {
            kind: "data_flow",
            id: "reread_version_used",
            explain: "The version re-read after the conflict must be sent with the update.",
            from_response_url_pattern: `^${re(url)}$`,
            from_status: 200,
            from_body_key: built.conflictField,
            answer_field: built.conflictField,
            must_be_stored: false,
            used_in_request_url_pattern: null,
          },
        ],
        probes: [
          {
            method: t.updateMethod,
            url,
            body: { [a.enumField.name]: value, version: 1 },
            token: "fresh",
            status: 409,
            error: "version_conflict",
          },
        ],
      });
    },
  };
}

export const ERROR_RECOVERY_TEMPLATES: readonly SubtaskTemplate[] = [
  wrongVerb("easy"),
  rateLimited("easy"),
  wrongVerb("medium"),
  rateLimited("medium"),
  flakyCreate("transient", "medium"),
  flakyCreate("partial", "medium"),
  versionConflict("medium"),
  wrongVerb("hard"),
  versionConflict("hard"),
  flakyCreate("transient", "hard"),
  flakyCreate("partial", "hard"),
];
