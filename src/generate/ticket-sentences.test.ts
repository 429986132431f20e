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
const CONVERTED: readonly Axis[] = [
  "auth",
  "discovery",
  "schema_repair",
  "pagination",
  "multistep",
  "statefulness",
  "error_recovery",
];

/** The families whose chain steps are stated from their requirements' briefs. */
const BRIEFED: readonly Axis[] = ["multistep", "statefulness", "error_recovery"];

/**
 * A chain's sentence-check findings with the segment each is about: a requirement's `@segment`, or
 * the step line the flagged sentence is on (none: the introduction).
 */
function chainFindings(task: Task): Array<{ finding: string; segment?: number }> {
  const lines = task.ticket.split("\n");
  return unbackedSentences(task).map((finding) => {
    const named = /@(\d+) is not stated/.exec(finding)?.[1];
    if (named) return { finding, segment: Number(named) };
    const quoted = /"(.*)" states a requirement/.exec(finding)?.[1] ?? "";
    const step = /^(\d+)\.\s/.exec(lines.find((l) => l.includes(quoted)) ?? "")?.[1];
    const segment = step ? task.positions[Number(step) - 1] : undefined;
    return segment === undefined ? { finding } : { finding, segment };
  });
}

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

describe("the sentence check on a chain's steps in brief", () => {
  const brief = "Park T-1.";
  const canonical = "Throughout, stay on the current v3 routes: no deprecated or partner routes.";
  const intro = "A batch of 2 open tickets for Trucks, oldest first.";
  /** A chain whose segment 2 states its requirement in brief and whose intro states segment 1's decoy constraint. */
  function chainTask(): Task {
    const solo = soloTask();
    const fields = solo.grader.answer.map((f) => f.field);
    return {
      ...solo,
      id: "w-chain-1to02",
      kind: "chain",
      positions: [1, 2],
      ticket: `${intro} ${canonical}\n\n1. It went stale overnight.\n2. ${brief}\n\n${answerCardInstruction(fields)}`,
      story: [intro, "It went stale overnight."],
      grader: {
        ...solo.grader,
        answer: solo.grader.answer.map((f) => ({ ...f, segment: 2 })),
        g1: solo.grader.g1.map((p) => ({ ...p, segment: 2 })),
        constraints: [
          { kind: "forbid", id: "no_partner", explain: "", url_pattern: "^/v3/partner/", segment: 1 },
        ],
      },
      requirements: [
        {
          kind: "end_state",
          id: "status_parked",
          sentence: sentences.status,
          brief,
          predicates: ["parked"],
          record: { resource: "trucks", where: { id: "T-1" } },
          expect: { is: "field", field: "status", value: "parked" },
          segment: 2,
        },
        {
          kind: "stay_canonical",
          id: "stay_canonical",
          sentence: "Stay on v3.",
          brief: canonical,
          predicates: ["no_partner"],
          segment: 1,
        },
      ],
    } as Task;
  }

  it("accepts steps made of their segment's briefs and story, and an introduction stating a segment's brief", () => {
    const chain = chainTask();
    expect(unbackedSentences(chain)).toEqual([]);
    expect(auditTicket(chain).backed.sort()).toEqual([brief, canonical].sort());
  });

  it("rejects a requirement the chain ticket states neither in brief nor in full", () => {
    const chain = chainTask();
    const silent = { ...chain, ticket: chain.ticket.replace(`2. ${brief}`, "2. It was parked outside.") };
    expect(unbackedSentences(silent)).toEqual([
      '"It was parked outside." states a requirement no predicate holds',
      "requirement status_parked@2 is not stated in the ticket",
    ]);
  });

  it("rejects, in a selective chain, a step demanding what a segment it does not grade would hold", () => {
    const chain = chainTask();
    const selective: Task = {
      ...chain,
      grader: { ...chain.grader, chain_mode: "selective" },
      graded_segments: [1],
    };
    expect(unbackedSentences(selective)).toEqual([`"${brief}" states a requirement no predicate holds`]);
    expect(unbackedSentences({ ...selective, graded_segments: [1, 2] })).toEqual([]);
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

  it("finds no unbacked sentence in any solo ticket that records its story", () => {
    const told = bank.tasks.filter((t) => t.kind === "solo" && t.story !== undefined);
    expect(told.flatMap((t) => unbackedSentences(t).map((f) => `${t.id}: ${f}`))).toEqual([]);
  });

  it("states every chain introduction, and every step of the briefed families, from held requirements", () => {
    const axisAt = new Map(
      bank.tasks.filter((t) => t.kind === "solo").map((t) => [`${t.world}@${t.positions[0]}`, t.axes[0]]),
    );
    const chains = bank.tasks.filter((t) => t.kind === "chain");
    expect(chains.every((t) => t.story !== undefined)).toBe(true);
    const found = chains.flatMap((t) =>
      chainFindings(t)
        .filter(
          (f) => f.segment === undefined || BRIEFED.includes(axisAt.get(`${t.world}@${f.segment}`) as Axis),
        )
        .map((f) => `${t.id}: ${f.finding}`),
    );
    expect(found).toEqual([]);
  });
});
