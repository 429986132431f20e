import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { literalStart, urlMatchesPattern } from "./grade-g1.js";

/**
 * Agent audit 18: the URL index tests a pattern only on the logged URLs starting with its literal
 * start, so a literal start that is not a prefix of every URL the pattern matches would drop a
 * call. Checked here on every URL pattern of the default bank against the canonical URLs that
 * trials played by hand over `apiflow mcp --http` logged (a case-changed path, a trailing slash,
 * `;params`, an empty or foreign query, the version in a header or a query, pages read out of
 * order), each with variants of its own.
 */

/** The canonical URLs the audit's trials logged (hotel, transit, harbour, satellite tasks). */
const LOGGED = [
  "/PMS/rooms/404",
  "/ops/vehicles/8517",
  "/pms/api-keys",
  "/pms/v3/hk-tasks/async",
  "/pms/v3/jobs/job_26TFA2",
  "/pms/v3/jobs/job_26TFA2/",
  "/pms/v3/jobs/job_26TFA2/confirm",
  "/pms/v3/jobs/job_26TFA2?x=1",
  "/pms/v3/rooms/404",
  "/pms/v3/rooms/404/",
  "/pms/v3/rooms/404;x=1?a=b",
  "/v3/OPS/vehicles/8517",
  "/v3/gs/auth",
  "/v3/gs/passes",
  "/v3/gs/passes/PASS-ARR5NB",
  "/v3/gs/satellites/55949",
  "/v3/oauth/token",
  "/v3/ops/disruptions;v=1",
  "/v3/ops/disruptions?",
  "/v3/ops/token",
  "/v3/ops/vehicles/4273?fields=all",
  "/v3/ops/vehicles/4287",
  "/v3/ops/vehicles/4287/",
  "/v3/ops/vehicles/4287?x=%2F",
  "/v3/ops/vehicles/8370",
  "/v3/ops/vehicles?page=4&per_page=20",
  "/v3/ops/vehicles?per_page=20&page=2",
  "/v3/vessels/V-093?fields=all",
  "/v3/vessels/V-620",
  "/v3/vessels?page=3&per_page=20",
  "/v3/vessels?per_page=20&page=4",
];

/** Each logged URL with variants a pattern's start might misjudge. */
function variants(url: string): string[] {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  return [
    url,
    url.toUpperCase(),
    `${path}/`,
    `${path}?`,
    `${path}?fields=all`,
    `${path}//x`,
    `${path};v=1`,
    `${path}%2Fx`,
    path.replace(/\/v3\//, "/V3/"),
    path.replace(/\/v3\//, "/v2/"),
    path.replace(/\/v3\//, "/"),
    `/api${path}`,
    `/billing${path}`,
  ];
}

const URLS = [...new Set(LOGGED.flatMap(variants))];

/** Every string of the bank's graders that reads as an anchored URL pattern. */
function bankPatterns(): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      if (v.startsWith("^/")) found.add(v);
    } else if (v !== null && typeof v === "object") for (const x of Object.values(v)) walk(x);
  };
  for (const task of bankFromContent(defaultBankContent()).tasks) walk(task.grader);
  return [...found];
}

/** The (pattern, URL) pairs where the pattern matches a URL that does not start with `startOf(pattern)`. */
function violations(
  patterns: readonly string[],
  urls: readonly string[],
  startOf: (re: RegExp) => string,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const source of patterns) {
    const re = new RegExp(source);
    const start = startOf(re);
    for (const url of urls) if (urlMatchesPattern(re, url) && !url.startsWith(start)) out.push([source, url]);
  }
  return out;
}

describe("agent audit 18: the default bank's URL patterns and the URLs agents log", () => {
  const patterns = bankPatterns();

  it("every URL a bank pattern matches starts with the pattern's literal start", () => {
    expect(patterns.length).toBeGreaterThan(500);
    expect(violations(patterns, URLS, literalStart)).toEqual([]);
  });

  it("the URLs exercise the patterns: listings, records, jobs and query-carrying calls match some", () => {
    const matched = (url: string) => patterns.some((p) => urlMatchesPattern(new RegExp(p), url));
    for (const url of [
      "/v3/vessels?page=3&per_page=20",
      "/v3/vessels/V-093?fields=all",
      "/v3/ops/vehicles?per_page=20&page=2",
      "/v3/ops/vehicles/4287?x=%2F",
      "/v3/gs/satellites/55949",
      "/v3/ops/disruptions?",
    ])
      expect(matched(url), url).toBe(true);
  });

  it("the check finds a start one character too long (a query-allowing pattern's start taken past its path)", () => {
    const tooLong = (re: RegExp) => {
      const start = literalStart(re);
      return re.source.endsWith("(\\?.*)?$") ? `${start}?` : start;
    };
    const found = violations(patterns, URLS, tooLong);
    expect(found.length).toBeGreaterThan(0);
    // Such a pattern matches its route without a query, which does not start with the "?".
    expect(found.some(([, url]) => !url.includes("?"))).toBe(true);
  });
});
