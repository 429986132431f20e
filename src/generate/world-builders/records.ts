import type { Rng } from "../../bank/rng.js";
import type { CanaryRef, ExpectedValue } from "../../bank/task-schema.js";
import type { WorldTemplate } from "../world-template.js";

/** Fewest pages the asset listing takes at its largest page size (`WorldTemplate.collectionSize`). */
export const MIN_LISTING_PAGES = 3;

/** A record as the generator tracks it: literal values or canary references. */
export type SymRecord = Record<string, ExpectedValue>;

/** A canary reference: the value the engine mints for `name` in `format`. */
export const canary = (name: string, format: string): CanaryRef => ({ $canary: name, format });

/** A seeded id from a pattern: `#` digit, `@` upper-case letter, `x` hex digit. */
export function idFromPattern(pattern: string, rng: Rng): string {
  const letters = "ABCDEFGHJKMNPRSTVWXY";
  let out = "";
  for (const ch of pattern) {
    if (ch === "#") out += String(rng.int(0, 9));
    else if (ch === "@") out += letters[rng.int(0, letters.length - 1)];
    else if (ch === "x") out += "0123456789abcdef"[rng.int(0, 15)];
    else out += ch;
  }
  return out;
}

/**
 * The seeded assets: distinct ids from the template's pattern, names from its list (numbered on
 * later rounds), secrets as canaries, a seeded enum value and a one-decimal number, no link yet.
 *
 * The collection takes at least `MIN_LISTING_PAGES` pages at the listing's largest page size, so a
 * question about the whole collection cannot be answered from one page.
 *
 * @example seedAssets(FLEET, rng).length // FLEET.collectionSize
 */
export function seedAssets(t: WorldTemplate, rng: Rng): SymRecord[] {
  const a = t.asset;
  if (t.collectionSize <= (MIN_LISTING_PAGES - 1) * t.pagination.maxPageSize)
    throw new Error(
      `world template ${t.id}: ${t.collectionSize} ${a.plural} fit in fewer than ${MIN_LISTING_PAGES} pages of ${t.pagination.maxPageSize}`,
    );
  const ids = new Set<string>();
  while (ids.size < t.collectionSize) ids.add(idFromPattern(a.idPattern, rng));
  return [...ids].map((id, i) => {
    const round = Math.floor(i / a.names.length);
    const record: SymRecord = {
      [a.idField]: id,
      [a.nameField]: `${a.names[i % a.names.length]}${round > 0 ? ` ${round + 1}` : ""}`,
    };
    for (const f of a.canaryFields) record[f.name] = canary(`${id}:${f.name}`, f.format);
    record[a.enumField.name] = rng.pick(a.enumField.values);
    // Never a whole number: "9" would be found in any ticket that numbers its steps.
    const tenths = rng.int(a.numberField.min * 10, a.numberField.max * 10);
    record[a.numberField.name] = (tenths % 10 === 0 ? tenths + 3 : tenths) / 10;
    record[a.linkField.name] = null;
    record.version = 1;
    return record;
  });
}
