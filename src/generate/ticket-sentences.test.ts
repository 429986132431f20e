import { describe, expect, it } from "vitest";
import type { Axis, Task } from "../bank/task-schema.js";
import { answerCardInstruction } from "./compose.js";
import { defaultBankContent } from "./default-bank.js";
import {
  auditTicket,
  demandsSomething,
  sentenceCoverage,
  ticketSentences,
  unbackedSentences,
} from "./ticket-sentences.js";

/**
 * The families whose templates state every instruction sentence from a requirement and record
 * their story: their solo tickets must have no unbacked sentence. (The check becomes a hard
 * `requirementFindings` finding once all seven comply.)
 */
const CONVERTED: readonly Axis[] = ["auth", "discovery", "schema_repair", "pagination"];

const story = [
  "Ticket from the night dispatcher.",
  '`GET /v3/trucks/T-1` gets back `401 token_expired` ("the token has expired. Renew it.").',
];
const sentences = {
  status: "The truck's `status` must end as `parked`, no other status.",
  report: "Report `status` and `odometer`.",
};

/** A solo task whose ticket is its story, two held requirements' sentences and the card instruction. */
function soloTask(): Task {
  const fields = ["status", "odometer"];
  return {
    id: "w-sub01",
    world: "w",
    kind: "solo",
    positions: [1],
    axes: ["auth"],
    difficulty: "easy",
    coupling: "none",
    ticket: `${[...story, sentences.status, sentences.report].join(" ")}\n\n${answerCardInstruction(fields)}`,
    story,
    workspace: { vault: {}, local: {}, global: {} },
    setup: [],
    golden: [{ op: "answer", fields: { status: "s", odometer: "o" } }],
    grader: {
      answer: fields.map((f) => ({ field: f, comparator: "string", expected: "x", explain: "" })),
      g1: [
        {
          kind: "end_state",
          id: "parked",
          explain: "",
          record: { resource: "trucks", where: { id: "T-1" } },
          expect: { is: "field", field: "status", value: "parked" },
        },
      ],
      constraints: [],
      checkpoints: [],
    },
    requirements: [
      {
        kind: "end_state",
        id: "status_parked",
        sentence: sentences.status,
        predicates: ["parked"],
        record: { resource: "trucks", where: { id: "T-1" } },
        expect: { is: "field", field: "status", value: "parked" },
      },
      {
        kind: "report",
        id: "report",
        sentence: sentences.report,
        fields,
        predicates: fields.map((f) => `answer:${f}`),
      },
    ],
  } as Task;
}

describe("ticketSentences", () => {
  it("splits at full stops and line breaks, never inside code, quotations or parentheses", () => {
    expect(
      ticketSentences(
        'Read `v1.2. x` (e.g. the old one. Really) first. It said "no. stop". Then go!\n1. Next step',
      ),
    ).toEqual([
      "Read `v1.2. x` (e.g. the old one. Really) first.",
      'It said "no. stop".',
      "Then go!",
      "1. Next step",
    ]);
  });
});

describe("demandsSomething", () => {
  it("tells requirement language and imperatives from a story", () => {
    for (const s of [
      "Check how long a token lives.",
      "The job may mint only once.",
      "Make sure the record ends `parked`.",
      "The compliance team needs the audit views, in that order.",
      "Its token is stale: renew it first.",
      "Leave the other trucks alone.",
    ])
      expect(demandsSomething(s), s).toBe(true);
    for (const s of [
      "Ticket from the night dispatcher.",
      '`GET /v3/x` gets back `401` ("you must only renew before a keep").',
      "Nobody on shift knows how that job authenticates.",
      "The sweep sends `x-apiflow-wait: 30` at each pause.",
    ])
      expect(demandsSomething(s), s).toBe(false);
  });
});

describe("unbackedSentences, the sentence check", () => {
  it("accepts a ticket made of its story, held requirements' sentences and the card instruction", () => {
    const task = soloTask();
    expect(unbackedSentences(task)).toEqual([]);
    expect(auditTicket(task).backed).toEqual([sentences.status, sentences.report]);
  });

  it("rejects a sentence demanding a value that no requirement states", () => {
    const task = soloTask();
    const extra = "Set its `odometer` to `1200` as well.";
    const bad = { ...task, ticket: task.ticket.replace(sentences.report, `${extra} ${sentences.report}`) };
    expect(unbackedSentences(bad)).toEqual([`"${extra}" states a requirement no predicate holds`]);
  });

  it("rejects the same sentence hidden in the story, and a story part the ticket lacks", () => {
    const task = soloTask();
    const extra = "The odometer must read `1200` afterwards.";
    const hidden = {
      ...task,
      ticket: task.ticket.replace(sentences.report, `${extra} ${sentences.report}`),
      story: [...story, extra, "It happened twice."],
    };
    expect(unbackedSentences(hidden)).toEqual([
      `story sentence "${extra}" states a requirement`,
      'story part "It happened twice." is not in the ticket',
    ]);
  });

  it("rejects a requirement's sentence when no predicate of the grader holds it", () => {
    const task = soloTask();
    const [status, report] = task.requirements ?? [];
    if (!status || !report) throw new Error("fixture");
    for (const predicates of [[], ["nowhere"]]) {
      const unheld = { ...task, requirements: [{ ...status, predicates }, report] };
      expect(unbackedSentences(unheld)).toEqual([
        `"${sentences.status}" states a requirement no predicate holds`,
      ]);
    }
  });

  it("flags every sentence but the card instruction of a ticket that records no story", () => {
    const { story: _story, requirements: _r, ...bare } = soloTask();
    expect(auditTicket(bare).unbacked).toEqual([...story, sentences.status, sentences.report]);
  });

  it("holds a chain's step line to its own segment's requirements", () => {
    const solo = soloTask();
    const fields = solo.grader.answer.map((f) => f.field);
    const intro = "A batch of 2 open tickets for Trucks, oldest first.";
    const chain: Task = {
      ...solo,
      id: "w-chain-1to02",
      kind: "chain",
      positions: [1, 2],
      ticket: `${intro}\n\n1. Look at T-2 today.\n2. ${sentences.status}\n\n${answerCardInstruction(fields)}`,
      story: [intro],
      grader: { ...solo.grader, g1: solo.grader.g1.map((p) => ({ ...p, segment: 2 })) },
      requirements: [
        {
          kind: "end_state",
          id: "status_parked",
          sentence: sentences.status,
          predicates: ["parked"],
          record: { resource: "trucks", where: { id: "T-1" } },
          expect: { is: "field", field: "status", value: "parked" },
          segment: 2,
        },
      ],
    };
    expect(unbackedSentences(chain)).toEqual([
      '"Look at T-2 today." states a requirement no predicate holds',
    ]);
    // The same sentence on segment 1's line is not held there.
    const moved = {
      ...chain,
      ticket: chain.ticket.replace("1. Look at T-2 today.", `1. ${sentences.status}`),
    };
    expect(unbackedSentences(moved)).toEqual([
      `"${sentences.status}" states a requirement no predicate holds`,
    ]);
  });
});

describe("the default bank's tickets", () => {
  const bank = defaultBankContent();
  const coverage = sentenceCoverage(bank.tasks);

  it("states every instruction sentence of the converted families from a held requirement", () => {
    const solo = bank.tasks.filter((t) => t.kind === "solo" && CONVERTED.includes(t.axes[0] as Axis));
    expect(solo.every((t) => t.story !== undefined)).toBe(true);
    expect(solo.flatMap((t) => unbackedSentences(t).map((f) => `${t.id}: ${f}`))).toEqual([]);
    for (const axis of CONVERTED) expect(coverage[axis]?.unbacked).toBe(0);
  });

  it("finds no unbacked sentence in any ticket that records its story", () => {
    const told = bank.tasks.filter((t) => t.story !== undefined);
    expect(told.flatMap((t) => unbackedSentences(t).map((f) => `${t.id}: ${f}`))).toEqual([]);
  });
});
