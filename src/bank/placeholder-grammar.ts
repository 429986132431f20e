/**
 * The `{{name}}` placeholder grammar, declared once: golden solutions, agents' requests and the
 * workspace all write a variable's value into a string as `{{name}}`, where `name` is a letter or
 * `_` followed by letters, digits, `_`, `.` or `-`, with optional spaces inside the braces
 * (`{{ token }}`). Anything else in double braces is literal text.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}$/;

/**
 * Whether `text` may hold a placeholder (a cheap test before the regex; most strings hold none).
 *
 * @example mayHavePlaceholder("/v3/x") // false
 */
export function mayHavePlaceholder(text: string): boolean {
  return text.includes("{{");
}

/**
 * The names of the placeholders in `text`, in order, repeats kept.
 *
 * @example placeholderNames("/v3/{{fleet}}/{{ id }}") // ["fleet", "id"]
 */
export function placeholderNames(text: string): string[] {
  if (!mayHavePlaceholder(text)) return [];
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/**
 * `text` with each placeholder replaced by `replace(name, whole)` (`whole` is the placeholder as
 * written, to keep it).
 *
 * @example replacePlaceholders("Bearer {{tok}}", (name) => name.toUpperCase()) // "Bearer TOK"
 */
export function replacePlaceholders(text: string, replace: (name: string, whole: string) => string): string {
  if (!mayHavePlaceholder(text)) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) => replace(name, whole));
}

/**
 * `text` split at its placeholders: literal, name, literal, …, literal (names at odd indexes).
 *
 * @example splitAtPlaceholders("/v3/{{a}}/x") // ["/v3/", "a", "/x"]
 */
export function splitAtPlaceholders(text: string): string[] {
  return text.split(PLACEHOLDER);
}

/**
 * The name when `text` is exactly one placeholder (a body value that keeps its bound value's JSON
 * type), else null.
 *
 * @example wholePlaceholder("{{ count }}") // "count"
 */
export function wholePlaceholder(text: string): string | null {
  return WHOLE.exec(text)?.[1] ?? null;
}

/**
 * The placeholder for a variable name.
 *
 * @example placeholder("token") // "{{token}}"
 */
export function placeholder(name: string): string {
  return `{{${name}}}`;
}
