import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { skeletonContent } from "../../test/support/test-banks.js";
import { contentHash, type Manifest } from "../bank/bank.js";
import { sha256Hex } from "../bank/canonical-json.js";
import { type BankError, jsonPath, loadBank, writeBank } from "../bank/load-bank.js";

/**
 * Issue 8: a malformed or hostile bank fails with the file and JSON path of the problem and never
 * executes anything from the bank. Every case is re-hashed into the manifest, so it gets past the
 * SHA-256 check and reaches the parser and the schemas (where a hostile author would aim).
 */
const root = mkdtempSync(join(tmpdir(), "apiflow-hostile-"));
let runs = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TASK = "tasks/harbor-telemetry-sub03.json";
const WORLD = "worlds/harbor-telemetry.json";

function freshBank(): string {
  const dir = join(root, `bank-${runs++}`);
  writeBank(dir, skeletonContent());
  return dir;
}

/** Replace a file's text and re-hash the manifest so the change reaches the parser. */
function plant(
  dir: string,
  file: string,
  text: string,
  manifestEdit: (m: Manifest) => void = () => {},
): void {
  writeFileSync(join(dir, file), text);
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest;
  if (file !== "manifest.json") manifest.files[file] = sha256Hex(text);
  manifestEdit(manifest);
  writeFileSync(
    join(dir, "manifest.json"),
    JSON.stringify({ ...manifest, content_hash: contentHash(manifest) }),
  );
}

function loadError(dir: string): BankError | null {
  const r = loadBank(dir);
  return r.success ? null : r.error;
}

type Path = Array<string | number>;
function nodes(value: unknown, at: Path = []): Array<{ path: Path; value: unknown }> {
  const out = [{ path: at, value }];
  if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value))
      out.push(...nodes(v, [...at, Array.isArray(value) ? Number(k) : k]));
  return out;
}
function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cur = copy;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[path[path.length - 1] as string | number] = value;
  return copy;
}
const original = (file: string) => JSON.parse(readFileSync(join(freshBank(), file), "utf8")) as unknown;
const taskNodes = nodes(original(TASK));
/** `golden.3.request.body` for a path, with array indices as `#`. */
const dotted = (path: Path) => path.map((k) => (typeof k === "number" ? "#" : k)).join(".");
/** The slots of a task file that take any JSON value: request bodies, expected values (a write's `sent` among them), variables. */
const ANY_VALUE =
  /^(golden|setup)\.#\.request\.body(\.|$)|^grader\.(answer|g1)\.#\.(expected|value)(\.|$)|\.sent\.|^workspace\.(vault|local|global)\./;
/** The slots that take any scalar (a record selector's `where` values): arrays and objects still fail. */
const ANY_SCALAR = /\.where\.[^.]+$/;
/** The slots that take null as well as their own type. */
const NULLABLE = /^grader\.g1\.#\.used_in_request_url_pattern$/;
/** The objects that take any key: records (bodies, headers, captures, fields, variables, values). */
const ANY_KEY =
  /\.(where|sent)$|^(golden|setup)\.#\.(capture|fields|request\.headers)$|^(golden|setup)\.#\.request\.body(\.|$)|^grader\.(answer|g1)\.#\.(expected|value)(\.|$)|^workspace\.(vault|local|global)$/;
const FILES = [TASK, WORLD];

describe("loading a malformed or hostile bank", () => {
  it("truncated JSON fails with the file and $", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("manifest.json", ...FILES),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (file, cut) => {
          const dir = freshBank();
          const text = readFileSync(join(dir, file), "utf8");
          const truncated = text.slice(0, Math.floor(text.trimEnd().length * cut));
          if (file === "manifest.json") writeFileSync(join(dir, file), truncated);
          else plant(dir, file, truncated);
          const error = loadError(dir);
          expect(error).toMatchObject({ code: "json", file, path: "$" });
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a value of the wrong type fails at its JSON path (or is a JSON slot that takes any value)", () => {
    const leaves = taskNodes.filter((n) => n.path.length > 0);
    fc.assert(
      fc.property(fc.constantFrom(...leaves), fc.constantFrom(7, "x", true, null, [], {}), (leaf, wrong) => {
        if (typeof wrong === typeof leaf.value && Array.isArray(wrong) === Array.isArray(leaf.value)) return;
        const dir = freshBank();
        plant(dir, TASK, JSON.stringify(setAt(original(TASK), leaf.path, wrong)));
        const error = loadError(dir);
        const scalar = wrong === null || typeof wrong !== "object";
        if (
          ANY_VALUE.test(dotted(leaf.path)) ||
          (wrong === null && NULLABLE.test(dotted(leaf.path))) ||
          (scalar && ANY_SCALAR.test(dotted(leaf.path)))
        ) {
          expect(error, dotted(leaf.path)).toBeNull();
          return;
        }
        // Anywhere else the loader must reject it.
        expect(error, `${dotted(leaf.path)} = ${JSON.stringify(wrong)} was accepted`).not.toBeNull();
        if (!error) return;
        expect(error.file).toBe(TASK);
        // The error points at the changed value or at an enclosing node (a union, an object).
        expect(jsonPath(leaf.path).startsWith(error.path.replace(/\.$/, ""))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("huge strings load or fail with a path, and never hang or crash the loader", () => {
    const strings = taskNodes.filter((n) => typeof n.value === "string");
    fc.assert(
      fc.property(fc.constantFrom(...strings), fc.integer({ min: 100_000, max: 2_000_000 }), (leaf, size) => {
        const dir = freshBank();
        plant(dir, TASK, JSON.stringify(setAt(original(TASK), leaf.path, "A".repeat(size))));
        const error = loadError(dir);
        if (error) expect(error).toMatchObject({ file: TASK, path: expect.stringMatching(/^\$/) });
      }),
      { numRuns: 15 },
    );
  });

  it("an unknown key fails with the file and the path of its object", () => {
    const objects = taskNodes.filter(
      (n) => n.value !== null && typeof n.value === "object" && !Array.isArray(n.value),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...objects),
        fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k !== "__proto__"),
        (node, key) => {
          if (Object.hasOwn(node.value as object, key)) return;
          const dir = freshBank();
          plant(dir, TASK, JSON.stringify(setAt(original(TASK), [...node.path, key], "surprise")));
          const error = loadError(dir);
          if (node.path.length === 0) expect(error).toMatchObject({ code: "schema", file: TASK, path: "$" });
          if (ANY_KEY.test(dotted(node.path))) {
            expect(error, dotted(node.path)).toBeNull();
            return;
          }
          // Any other object is strict: the loader must reject the key.
          expect(error, `${dotted(node.path)}.${key} was accepted`).not.toBeNull();
          if (!error) return;
          expect(error.file).toBe(TASK);
          expect(jsonPath([...node.path, key]).startsWith(error.path)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a grader's URL pattern that is empty or does not compile fails at its path, saying which", () => {
    const patterns = taskNodes.filter(
      (n) => /_pattern$|\.url_patterns\.#$/.test(dotted(n.path)) && n.value !== null,
    );
    expect(patterns.length).toBeGreaterThan(3);
    for (const leaf of patterns)
      for (const [bad, message] of [
        ["", "an empty pattern would match every URL"],
        ["^/v3/(vessels", "not a valid regular expression"],
      ]) {
        const dir = freshBank();
        plant(dir, TASK, JSON.stringify(setAt(original(TASK), leaf.path, bad)));
        expect(loadError(dir), `${dotted(leaf.path)} = ${JSON.stringify(bad)}`).toEqual({
          code: "schema",
          file: TASK,
          path: jsonPath(leaf.path),
          message,
        });
      }
  });

  it("a __proto__ key anywhere fails with the file and its JSON path", () => {
    const objects = [...FILES, "manifest.json"].flatMap((file) =>
      nodes(original(file))
        .filter((n) => n.value !== null && typeof n.value === "object" && !Array.isArray(n.value))
        .map((n) => ({ file, path: n.path })),
    );
    fc.assert(
      fc.property(fc.constantFrom(...objects), (target) => {
        const dir = freshBank();
        // JSON.parse makes "__proto__" an own key, exactly as a hostile file on disk would.
        const planted = injectProto(JSON.stringify(original(target.file)), target.path);
        if (target.file === "manifest.json") writeFileSync(join(dir, "manifest.json"), planted);
        else plant(dir, target.file, planted);
        const error = loadError(dir);
        expect(error).toMatchObject({ file: target.file, path: `${jsonPath(target.path)}.__proto__` });
      }),
      { numRuns: 60 },
    );
  });

  it("paths escaping the bank folder, or files that are not JSON, are refused without being read", () => {
    const outside = join(root, "outside.json");
    writeFileSync(outside, "{}");
    fc.assert(
      fc.property(
        fc.constantFrom(
          "../outside.json",
          "tasks/../../outside.json",
          "worlds/../../../etc/passwd.json",
          outside,
          "tasks\\..\\..\\outside.json",
          "tasks/evil.mjs",
          "worlds/index.js",
        ),
        (file) => {
          const dir = freshBank();
          const marker = join(dir, "executed");
          // Code a careless loader might import or evaluate; it must never run.
          writeFileSync(
            join(dir, "tasks", "evil.mjs"),
            `import fs from "node:fs"; fs.writeFileSync(${JSON.stringify(marker)}, "x");`,
          );
          writeFileSync(
            join(dir, "worlds", "index.js"),
            `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x");`,
          );
          const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Manifest;
          manifest.files = { [file]: sha256Hex("{}"), ...manifest.files };
          writeFileSync(
            join(dir, "manifest.json"),
            JSON.stringify({ ...manifest, content_hash: contentHash(manifest) }),
          );
          expect(loadError(dir)).toMatchObject({
            code: "path",
            file: "manifest.json",
            path: `$.files[${JSON.stringify(file)}]`,
          });
          expect(existsSync(marker)).toBe(false);
        },
      ),
      { numRuns: 20 },
    );
  });
});

/** Insert `"__proto__": {"polluted": true}` as the first key of the object at `path` in JSON text. */
function injectProto(text: string, path: Path): string {
  const doc = JSON.parse(text) as unknown;
  const marker = "__INJECT_PROTO_HERE__";
  const target = nodes(doc).find((n) => n.path.join("\u0000") === path.join("\u0000"))?.value as Record<
    string,
    unknown
  >;
  const withMarker = setAt(doc, path, { [marker]: true, ...target });
  return JSON.stringify(withMarker).replace(`"${marker}":true`, '"__proto__":{"polluted":true}');
}
