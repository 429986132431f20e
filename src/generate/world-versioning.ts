import type { Task } from "../bank/task-schema.js";
import type { Versioning } from "../bank/versioning-schema.js";
import type { World } from "../bank/world-schema.js";
import { VERSIONING_NOTE_OPENING, versioningNote } from "../world/versioning.js";

/** The versioning styles a bank deals its worlds (issue 16): in the path, a header, a query parameter. */
export const VERSIONING_STYLES = ["path", "header", "query"] as const;
export type VersioningStyle = (typeof VERSIONING_STYLES)[number];

/** The header or query parameter each carried style names the version with. */
const CARRIER = { header: "Api-Version", query: "api-version" } as const;

/**
 * A world's versioning in `style`: the prefix is what its canonical base has before the version
 * segment (`/billing/v3` → `/billing`, `/v3/farm` → ``). Every versioned route must name its
 * version right there; a template whose routes do not is a bug in the template.
 *
 * @example worldVersioning(world, "/billing/v3", "header") // { style: "header", name: "Api-Version", prefix: "/billing" }
 */
export function worldVersioning(world: World, base: string, style: VersioningStyle): Versioning {
  if (style === "path") return { style };
  const at = /\/v\d+(?=\/|$)/.exec(base);
  if (!at) throw new Error(`world ${world.id}: base ${base} has no version segment`);
  const prefix = base.slice(0, at.index);
  for (const path of [...world.routes.map((r) => r.path), world.auth.token_path]) {
    const segments = path.split("/");
    const where = segments.findIndex((s) => /^v\d+$/.test(s));
    const expected = prefix === "" ? 1 : prefix.split("/").length;
    if (where !== -1 && (where !== expected || !path.startsWith(`${prefix}/`)))
      throw new Error(`world ${world.id}: ${path} does not name its version right after ${prefix || "/"}`);
  }
  return { style, name: CARRIER[style], prefix };
}

/**
 * A generated world and its tasks in another versioning style: the world records it (the engine
 * folds the version back into the path where a request enters, so routes, goldens and graders
 * keep the path form), each task carries it for the golden player, and each ticket says how the
 * routes it names go on the wire (a story part: a fact of the world, not a demand). The path
 * style leaves both untouched.
 *
 * @example const v = withVersioning(world, tasks, worldVersioning(world, "/billing/v3", "query"));
 */
export function withVersioning(
  world: World,
  tasks: readonly Task[],
  versioning: Versioning,
): { world: World; tasks: Task[] } {
  if (versioning.style === "path") return { world, tasks: [...tasks] };
  const out = { ...world, versioning };
  const note = versioningNote(out) as string;
  return {
    world: out,
    tasks: tasks.map((t) => ({
      ...t,
      ticket: withNote(t.ticket, note),
      ...(t.story ? { story: [...t.story, note] } : {}),
      versioning,
    })),
  };
}

/** The ticket with `note` as a paragraph before its answer-card instruction. */
function withNote(ticket: string, note: string): string {
  const marker = "\n\nWhen you have finished";
  const at = ticket.indexOf(marker);
  return at < 0 ? `${ticket}\n\n${note}` : `${ticket.slice(0, at)}\n\n${note}${ticket.slice(at)}`;
}

/**
 * The task as a world served as GraphQL or MCP has it: no version carrier (operations are named,
 * not versioned by path), and no note about one.
 */
export function withoutVersioning(task: Task): Task {
  if (!task.versioning) return task;
  const { versioning: _dropped, ...rest } = task;
  const note = (task.story ?? []).find((s) => s.startsWith(VERSIONING_NOTE_OPENING));
  if (!note) return rest;
  return {
    ...rest,
    ticket: rest.ticket.replace(`\n\n${note}`, ""),
    ...(rest.story ? { story: rest.story.filter((s) => s !== note) } : {}),
  };
}
