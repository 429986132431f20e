import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import type { z } from "zod";
import type { Bank, BankContent } from "./bank.js";
import { contentHash, ManifestSchema, serializeBank } from "./bank.js";
import { sha256Hex } from "./canonical-json.js";
import { TaskSchema } from "./task-schema.js";
import { WorldSchema } from "./world-schema.js";

/** A problem in a bank on disk: which file, where in it (a JSON path such as `$.routes[2].path`), what. */
export interface BankError {
  code: "io" | "json" | "schema" | "hash" | "path" | "reference";
  file: string;
  path: string;
  message: string;
}

export type BankResult = { success: true; data: Bank } | { success: false; error: BankError };

/** One line for a person: `tasks/x.json $.grader.answer[0].field: expected string, received number`. */
export function formatBankError(error: BankError): string {
  return `${error.file} ${error.path}: ${error.message}`;
}

/**
 * Load and verify a bank directory. Never executes anything from the bank: files are read as JSON,
 * checked against their SHA-256 in the manifest and parsed with the zod schemas. The first problem
 * is returned with its file and JSON path.
 *
 * @example const r = loadBank("./bank"); if (!r.success) console.error(formatBankError(r.error));
 */
export function loadBank(dir: string): BankResult {
  const manifestRead = readJson(dir, "manifest.json");
  if (!manifestRead.success) return manifestRead;
  const manifestParsed = ManifestSchema.safeParse(manifestRead.data);
  if (!manifestParsed.success) return schemaError("manifest.json", manifestParsed.error);
  const manifest = manifestParsed.data;
  if (contentHash(manifest) !== manifest.content_hash) {
    return fail("hash", "manifest.json", "$.content_hash", "content hash does not match the manifest");
  }
  const worlds: Bank["worlds"] = [];
  const tasks: Bank["tasks"] = [];
  for (const [file, expectedHash] of Object.entries(manifest.files)) {
    const unsafe = unsafePath(file);
    if (unsafe) return fail("path", "manifest.json", `$.files[${JSON.stringify(file)}]`, unsafe);
    let text: string;
    try {
      text = readFileSync(join(dir, file), "utf8");
    } catch (e) {
      return fail("io", file, "$", `cannot read: ${(e as Error).message}`);
    }
    if (sha256Hex(text) !== expectedHash) return fail("hash", file, "$", "SHA-256 differs from the manifest");
    const json = parseJson(file, text);
    if (!json.success) return json;
    if (file.startsWith("worlds/")) {
      const parsed = WorldSchema.safeParse(json.data);
      if (!parsed.success) return schemaError(file, parsed.error);
      worlds.push(parsed.data);
    } else if (file.startsWith("tasks/")) {
      const parsed = TaskSchema.safeParse(json.data);
      if (!parsed.success) return schemaError(file, parsed.error);
      tasks.push(parsed.data);
    } else {
      return fail("path", "manifest.json", `$.files[${JSON.stringify(file)}]`, "not under worlds/ or tasks/");
    }
  }
  const worldIds = new Set(worlds.map((w) => w.id));
  for (const task of tasks) {
    if (!worldIds.has(task.world)) {
      return fail("reference", `tasks/${task.id}.json`, "$.world", `unknown world "${task.world}"`);
    }
  }
  return { success: true, data: { manifest, worlds, tasks } };
}

/**
 * Write a bank to a directory (files in canonical JSON, manifest last). Returns the manifest.
 *
 * @example const manifest = writeBank("my-bank", defaultBankContent()); manifest.content_hash;
 */
export function writeBank(dir: string, content: BankContent) {
  const { files, manifest } = serializeBank(content);
  for (const [path, text] of files) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return manifest;
}

function unsafePath(file: string): string | null {
  if (isAbsolute(file) || file.includes("\\")) return "absolute or backslash path";
  const norm = normalize(file);
  if (norm.startsWith("..") || norm.split(sep).includes("..")) return "path escapes the bank folder";
  if (!file.endsWith(".json")) return "not a .json file";
  return null;
}

function readJson(
  dir: string,
  file: string,
): { success: true; data: unknown } | { success: false; error: BankError } {
  let text: string;
  try {
    text = readFileSync(join(dir, file), "utf8");
  } catch (e) {
    return fail("io", file, "$", `cannot read: ${(e as Error).message}`);
  }
  return parseJson(file, text);
}

function parseJson(
  file: string,
  text: string,
): { success: true; data: unknown } | { success: false; error: BankError } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return fail("json", file, "$", `malformed JSON: ${(e as Error).message}`);
  }
  // Schemas would drop a `__proto__` key silently (records assign it as the prototype): refuse it.
  const proto = protoKeyPath(data, []);
  if (proto) return fail("json", file, jsonPath(proto), 'forbidden key "__proto__"');
  return { success: true, data };
}

function protoKeyPath(root: unknown, at: PropertyKey[]): PropertyKey[] | null {
  // Iterative, so a deeply nested hostile file cannot overflow the stack here.
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: root, path: at }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: PropertyKey[] };
    if (value === null || typeof value !== "object") continue;
    for (const [key, child] of Object.entries(value)) {
      if (key === "__proto__") return [...path, key];
      stack.push({ value: child, path: [...path, Array.isArray(value) ? Number(key) : key] });
    }
  }
  return null;
}

function schemaError(file: string, error: z.ZodError): { success: false; error: BankError } {
  const issue = error.issues[0];
  const path = issue ? jsonPath(issue.path) : "$";
  return fail("schema", file, path, issue?.message ?? "invalid");
}

/** `["routes", 2, "path"]` → `$.routes[2].path`. */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let out = "$";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (typeof s === "string" && /^[A-Za-z_$][\w$]*$/.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(String(s))}]`;
  }
  return out;
}

function fail(code: BankError["code"], file: string, path: string, message: string) {
  return { success: false as const, error: { code, file, path, message } };
}
