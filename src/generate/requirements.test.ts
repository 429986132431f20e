import { describe, expect, it } from "vitest";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "./default-bank.js";
import { attachRequirements, requirementFindings } from "./requirements.js";

const bank = defaultBankContent();

/** A solo task of the default bank that moves a record's status (a PATCH/PUT with `sent`). */
const writer = bank.tasks.find(
  (t) =>
    t.kind === "solo" &&
    t.grader.g1.some((p) => p.kind === "call" && p.sent && /PATCH|PUT/.test(p.method ?? "")),
) as Task;

describe("the generator's requirement check", () => {
  it("finds nothing in the default bank: every requirement held, no creation-order id, no key-only write", () => {
    const findings = bank.tasks.flatMap((t) => requirementFindings(t).map((f) => `${t.id}: ${f}`));
    expect(findings).toEqual([]);
    expect(bank.tasks.every((t) => (t.requirements ?? []).length > 0)).toBe(true);
  });

  it("rejects a requirement without a predicate, and one naming a predicate the grader lacks", () => {
    const [first, ...rest] = writer.requirements ?? [];
    if (!first) throw new Error("no requirement");
    const bare: Task = { ...writer, requirements: [{ ...first, predicates: [] }, ...rest] };
    expect(requirementFindings(bare)).toContain(`requirement ${first.id} has no predicate that holds it`);
    const dangling: Task = { ...writer, requirements: [{ ...first, predicates: ["nowhere"] }, ...rest] };
    expect(requirementFindings(dangling)).toContain(
      `requirement ${first.id} names nowhere, which the grader does not have`,
    );
  });

  it("rejects a ticket that does not state a declared requirement's sentence", () => {
    const stated = (writer.requirements ?? []).find((r) => r.sentence);
    if (!stated?.sentence) throw new Error("no stated requirement");
    const silent: Task = { ...writer, ticket: writer.ticket.replace(stated.sentence, "") };
    expect(requirementFindings(silent)).toContain(
      `requirement ${stated.id}: the ticket does not state "${stated.sentence}"`,
    );
  });

  it("rejects a ticket sentence that states a requirement no predicate holds, solo and in a chain step", () => {
    const extra = "Also leave a note on the record saying it was checked.";
    expect(requirementFindings(writer)).toEqual([]);
    expect(requirementFindings({ ...writer, ticket: `${extra} ${writer.ticket}` })).toContain(
      `"${extra}" states a requirement no predicate holds`,
    );
    const chain = bank.tasks.find((t) => t.kind === "chain") as Task;
    expect(requirementFindings(chain)).toEqual([]);
    const stepped = chain.ticket.replace(/^1\. /m, `1. ${extra} `);
    expect(stepped).not.toBe(chain.ticket);
    expect(requirementFindings({ ...chain, ticket: stepped })).toContain(
      `"${extra}" states a requirement no predicate holds`,
    );
  });

  it("rejects an id by creation order and a write checked by its keys only", () => {
    const positional: Task = {
      ...writer,
      grader: {
        ...writer.grader,
        answer: writer.grader.answer.map((f, i) =>
          i === 0 ? { ...f, expected: { $canary: "runs:id#3", format: "RUN-{code}" } } : f,
        ),
      },
    };
    expect(requirementFindings(positional)).toContain(
      `answer field ${writer.grader.answer[0]?.field} expects an id by creation order`,
    );
    const keyOnly: Task = {
      ...writer,
      grader: {
        ...writer.grader,
        g1: writer.grader.g1.map((p) => {
          if (p.kind !== "call" || !p.sent) return p;
          const { sent: _sent, ...rest } = p;
          return { ...rest, body_has_keys: Object.keys(p.sent) };
        }),
      },
    };
    expect(requirementFindings(keyOnly).some((f) => /checks a (PATCH|PUT) by its keys only/.test(f))).toBe(
      true,
    );
  });

  it("derives a requirement for every predicate no template statement names, and tags each", () => {
    const held = attachRequirements([], {
      g1: [
        {
          kind: "call",
          id: "moved",
          explain: "",
          method: "PATCH",
          url_pattern: "^/x/[^/]+$",
          body_has_keys: [],
          target: "X-1",
          sent: { status: "done" },
        },
        {
          kind: "data_flow",
          id: "flows",
          explain: "",
          from_response_url_pattern: "^/x$",
          from_status: 200,
          from_body_key: "id",
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
      ],
      answer: [{ field: "id", comparator: "string", expected: "X-1", explain: "" }],
      constraints: [{ kind: "forbid", id: "no_v1", explain: "", url_pattern: "^/v1/" }],
    });
    expect(held.requirements.map((r) => [r.id, r.kind, r.predicates])).toEqual([
      ["moved", "value_written", ["moved"]],
      ["flows", "value_flow", ["flows"]],
      ["report", "report", ["answer:id"]],
      ["stay_canonical", "stay_canonical", ["no_v1"]],
    ]);
    expect(held.g1.map((p) => p.requirement)).toEqual(["moved", "flows"]);
    expect(held.answer[0]?.requirement).toBe("report");
    expect(held.constraints[0]?.requirement).toBe("stay_canonical");
  });
});
