import { z } from "zod";
import { canonicalJson, sha256Hex } from "./canonical-json.js";
import { type Task, TaskSchema } from "./task-schema.js";
import { type World, WorldSchema } from "./world-schema.js";

export const BANK_SCHEMA_VERSION = "1.0";

export const BankCountsSchema = z.strictObject({
  worlds: z.number().int().nonnegative(),
  solo: z.number().int().nonnegative(),
  chain: z.number().int().nonnegative(),
  tasks: z.number().int().nonnegative(),
});

/** A gate that ran over the bank before it was written, with its version (see `src/certify/`). */
export const GateRecordSchema = z.strictObject({
  name: z.string(),
  version: z.string(),
  checked: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  /** Requirement mutants only: mutants generated and killed (the bank's mutation score). */
  mutants: z
    .strictObject({ generated: z.number().int().nonnegative(), killed: z.number().int().nonnegative() })
    .optional(),
});

/**
 * The bank's manifest: per-file SHA-256 and one content hash over everything else in it, so a run
 * can pin exactly the bank it ran.
 */
export const ManifestSchema = z.strictObject({
  schema_version: z.literal(BANK_SCHEMA_VERSION),
  name: z.string(),
  generator_version: z.string(),
  seed: z.string(),
  counts: BankCountsSchema,
  gates: z.array(GateRecordSchema).default([]),
  /** Bank-relative path → SHA-256 of the file's bytes. */
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
  content_hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** A loaded bank: its worlds and tasks plus the manifest that pins them. */
export interface Bank {
  manifest: Manifest;
  worlds: World[];
  tasks: Task[];
}

/** What a generator hands over before the manifest exists. */
export interface BankContent {
  name: string;
  generator_version: string;
  seed: string;
  worlds: World[];
  tasks: Task[];
  gates?: z.infer<typeof GateRecordSchema>[];
}

export const worldFile = (id: string) => `worlds/${id}.json`;
export const taskFile = (id: string) => `tasks/${id}.json`;

/**
 * The content hash: SHA-256 of the canonical manifest without the hash itself. The manifest lists
 * every file's own hash, so the content hash covers the whole bank, its seed, version and gates.
 */
export function contentHash(manifest: Omit<Manifest, "content_hash">): string {
  const { content_hash: _ignored, ...rest } = manifest as Manifest;
  return sha256Hex(canonicalJson(rest));
}

/**
 * Serialise a bank to its files (path → text), canonical JSON throughout, manifest last.
 * Serialising the same content twice gives the same bytes and the same content hash.
 *
 * @example const { files, manifest } = serializeBank(content); manifest.content_hash
 */
export function serializeBank(content: BankContent): { files: Map<string, string>; manifest: Manifest } {
  return serializeParsed({
    ...content,
    worlds: content.worlds.map((w) => WorldSchema.parse(w)),
    tasks: content.tasks.map((t) => TaskSchema.parse(t)),
  });
}

/** `serializeBank` of content whose worlds and tasks have been through their schemas already. */
function serializeParsed(content: BankContent): { files: Map<string, string>; manifest: Manifest } {
  const files = new Map<string, string>();
  const worlds = [...content.worlds].sort((a, b) => a.id.localeCompare(b.id));
  const tasks = [...content.tasks].sort((a, b) => a.id.localeCompare(b.id));
  for (const world of worlds) files.set(worldFile(world.id), `${canonicalJson(world)}\n`);
  for (const task of tasks) files.set(taskFile(task.id), `${canonicalJson(task)}\n`);
  const fileHashes: Record<string, string> = {};
  for (const [path, text] of [...files.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    fileHashes[path] = sha256Hex(text);
  }
  const solo = tasks.filter((t) => t.kind === "solo").length;
  const withoutHash = {
    schema_version: BANK_SCHEMA_VERSION,
    name: content.name,
    generator_version: content.generator_version,
    seed: content.seed,
    counts: { worlds: worlds.length, solo, chain: tasks.length - solo, tasks: tasks.length },
    gates: content.gates ?? [],
    files: fileHashes,
  } satisfies Omit<Manifest, "content_hash">;
  const manifest: Manifest = { ...withoutHash, content_hash: contentHash(withoutHash) };
  files.set("manifest.json", `${JSON.stringify(manifest, null, 2)}\n`);
  return { files, manifest };
}

/**
 * Build an in-memory bank from content, exactly as writing and loading it would.
 *
 * @example const bank = bankFromContent(defaultBankContent()); bank.manifest.content_hash;
 */
export function bankFromContent(content: BankContent): Bank {
  // Each world and task goes through its schema once, for the manifest's hashes and the bank both.
  const worlds = content.worlds.map((w) => WorldSchema.parse(w));
  const tasks = content.tasks.map((t) => TaskSchema.parse(t));
  const { manifest } = serializeParsed({ ...content, worlds, tasks });
  return { manifest, worlds, tasks };
}
