import { type Bank, type BankContent, bankFromContent } from "../../src/bank/bank.js";
import type { GoldenStep, Task } from "../../src/bank/task-schema.js";
import type { World } from "../../src/bank/world-schema.js";
import { triadExams } from "../../src/certify/triad.js";
import { harborTasks } from "../../src/generate/harbor-tasks.js";
import { protocolVariant, type VariantProtocol } from "../../src/generate/protocol-variants.js";
import { skeletonBankContent } from "../../src/generate/skeleton-bank.js";

/**
 * The walking skeleton's bank (one world, three solo tasks, the chain 1to3): the default bank as
 * it stood when the gates were written, and the base the broken tasks of the tests are cut from.
 */
export function skeletonContent(tasks: Task[] = harborTasks()): BankContent {
  return { ...skeletonBankContent(), name: "skeleton", generator_version: "test", tasks };
}

/** A protocol the skeleton bank can be served in: REST as written, or a `--protocols` variant. */
export type TestProtocol = "rest" | VariantProtocol;

/**
 * The skeleton bank in `protocol`: for GraphQL and MCP, the variant `apiflow generate --protocols`
 * writes (world and tasks translated call for call, graders kept).
 */
export function skeletonIn(protocol: TestProtocol): BankContent {
  const content = skeletonContent();
  if (protocol === "rest") return content;
  const v = protocolVariant(content.worlds[0] as World, content.tasks, protocol);
  if (!v.success) throw new Error(v.error.message);
  return { ...content, worlds: [v.data.world], tasks: v.data.tasks };
}

/** A skeleton task's id in `protocol` (`harbor-telemetry-sub01` → `harbor-telemetry-mcp-sub01`). */
export function idIn(protocol: TestProtocol, id: string): string {
  return protocol === "rest" ? id : id.replace(/^harbor-telemetry-/, `harbor-telemetry-${protocol}-`);
}

/**
 * The skeleton bank (in `protocol`, REST by default) with one task replaced by `edit` of itself
 * (the others kept for chains). `id` is the REST id; the edit sees the task in `protocol`.
 */
export function bankWith(id: string, edit: (task: Task) => Task, protocol: TestProtocol = "rest"): Bank {
  const content = skeletonIn(protocol);
  const target = idIn(protocol, id);
  return bankFromContent({
    ...content,
    tasks: content.tasks.map((t) => (t.id === target ? edit(structuredClone(t)) : t)),
  });
}

/** The skeleton bank with its world changed by `editWorld` (in place) and one task by `editTask`. */
export function skeletonEdited(
  editWorld: (w: World) => void,
  editTask: (t: Task) => Task = (t) => t,
  id: string = SUB01,
): Bank {
  const content = skeletonContent();
  const world = structuredClone(content.worlds[0]) as World;
  editWorld(world);
  return bankFromContent({
    ...content,
    worlds: [world],
    tasks: content.tasks.map((t) => (t.id === id ? editTask(t) : t)),
  });
}

/**
 * The skeleton bank in a world that names the API version in an `Api-Version` header (every task
 * too), one task changed by `editTask`: a path-form request (`/v3/...`) is refused there.
 */
export function headerVersioned(editTask: (t: Task) => Task = (t) => t, id: string = SUB01): Bank {
  const content = skeletonContent();
  const versioning = { style: "header" as const, name: "Api-Version", prefix: "" };
  return bankFromContent({
    ...content,
    worlds: content.worlds.map((w) => ({ ...w, versioning })),
    tasks: content.tasks.map((t) => ({ ...(t.id === id ? editTask(t) : t), versioning })),
  });
}

/** A golden edit: execute step `i` changed by `edit`, the other steps kept. */
export function stepEdited(
  i: number,
  edit: (s: Extract<GoldenStep, { op: "execute" }>) => GoldenStep,
): (t: Task) => Task {
  return (t) => ({ ...t, golden: t.golden.map((s, k) => (k === i && s.op === "execute" ? edit(s) : s)) });
}

export const SUB01 = "harbor-telemetry-sub01";
export const SUB02 = "harbor-telemetry-sub02";
export const SUB03 = "harbor-telemetry-sub03";
export const CHAIN = "harbor-telemetry-chain-1to03";

/** The task of a bank by id (tests only: a missing id is a bug in the test). */
export function taskOf(bank: Bank, id: string): Task {
  const task = bank.tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no task ${id}`);
  return task;
}

/**
 * SUB02 graded by the last port call only (which the deprecated v2 snapshot serves unchanged), with a
 * call check any read of V-311 meets and no constraint or checkpoint: a grader the decoy route also
 * satisfies. The triad's decoy sabotage and the exploit audit's decoy reader must both catch it.
 */
export function decoyBlindGrader(t: Task): Task {
  return {
    ...t,
    grader: {
      answer: t.grader.answer.filter((f) => f.field === "last_port_call"),
      g1: [
        {
          kind: "call",
          id: "read",
          explain: "",
          url_pattern: "^/v[23]/vessels/V-311$",
          status: 200,
          body_has_keys: [],
        },
      ],
      constraints: [],
      checkpoints: [],
    },
  };
}

/**
 * SUB02 whose only labour check is that a token was minted: nothing ties the answer to the call, so
 * the canary can be typed in without it.
 */
export function canaryTypedIn(t: Task): Task {
  return {
    ...t,
    grader: {
      ...t.grader,
      g1: [
        {
          kind: "call",
          id: "minted",
          explain: "",
          url_pattern: "^/v3/oauth/token$",
          status: 200,
          body_has_keys: [],
        },
      ],
    },
  };
}

/** SUB03 whose grader no longer checks the store the ticket demands (no workspace value, no stored flow). */
export function storeUnchecked(t: Task): Task {
  return {
    ...t,
    grader: {
      ...t.grader,
      g1: t.grader.g1
        .filter((p) => p.kind !== "workspace_value")
        .map((p) => (p.kind === "data_flow" ? { ...p, must_be_stored: false } : p)),
    },
  };
}

/** The chain graded selectively as if segment 3 consumed segment 1 (it re-derives everything itself). */
export function selectiveChain(t: Task): Task {
  return { ...t, grader: { ...t.grader, chain_mode: "selective" }, graded_segments: [1, 3] };
}

/** The chain whose grader ignores the firmware carried from segment 2 into segment 3's order. */
export function wrongSegmentBlind(t: Task): Task {
  return {
    ...t,
    grader: { ...t.grader, g1: t.grader.g1.filter((p) => p.id !== "firmware_carried_into_order") },
  };
}

/** Where the skeleton chain's segments lie in its golden: [position, start, end]. */
export const CHAIN_SEGMENTS = [
  [1, 0, 2],
  [2, 2, 5],
  [3, 5, 10],
];

/** The negative replays the skeleton chain is put through, in order, in every protocol. */
export const CHAIN_NEGATIVE_REPLAYS = [
  "skip_segment:1",
  "skip_segment:2",
  "wrong_segment_value:3",
  "decoy@2",
  "decoy@5",
  "decoy@7",
];

/** The kind of every triad exam the bank's tasks get (`sabotage:decoy_route@3` → `sabotage:decoy_route`). */
export function examKinds(bank: Bank): string[] {
  return bank.tasks.flatMap((t) =>
    triadExams(bank, t).map((e) => e.name.split(/[@:]/).slice(0, 2).join(":")),
  );
}
