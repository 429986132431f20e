/**
 * The areas `npm run mutate` measures: what a benchmark's users trust. Each area names the source
 * files Stryker mutates (most important first) and the only test files run against them, so one
 * area fits a loaded two-core machine. Slow end-to-end tests (property tests, spawned CLIs) are left
 * out on purpose: a mutant they alone would kill counts as surviving here.
 */
export interface MutationArea {
  name: string;
  /** What the area protects, for the printed table. */
  about: string;
  /** Files Stryker mutates (globs relative to the repository root). */
  mutate: string[];
  /** Test files run against the mutants (Stryker's `testFiles`). */
  tests: string[];
  /**
   * Files of the area not mutated yet (a full run does not fit the shared machine): printed as
   * unmeasured. Move one into `mutate` (and its tests into `tests`) to measure it.
   */
  notYet?: string[];
}

/** Mutation score every area must reach, in percent, counting accepted equivalents as killed. */
export const TARGET_SCORE = 90;

/**
 * The tests of grade-g1.ts's later areas: those that grade G1 predicates, without the determinism
 * property test (grade-trial.test.ts: seconds per mutant, and no verdict of its own to check).
 */
const G1_TESTS = [
  "src/grade/grade-g1.test.ts",
  "src/grade/grade-order-ranked.test.ts",
  "src/grade/grade-call-count.test.ts",
  "src/grade/grade-g1-dispatch.test.ts",
  "src/grade/grade-slots.test.ts",
  "src/grade/grade-canonical.test.ts",
  "src/grade/grade-trial-edges.test.ts",
  "src/grade/grade-trial-resolved.test.ts",
  "src/grade/grade-requirements.test.ts",
  "src/grade/grade-requirements-chain.test.ts",
  "src/grade/grade-other-sources.test.ts",
  "src/grade/failed-requirement.test.ts",
  "src/grade/failure-attribution.test.ts",
  "src/grade/explain-verdict.test.ts",
  "src/grade/grade-order-from-first.test.ts",
  "src/grade/grade-end-state.test.ts",
  "src/grade/grade-g1-unresolved.test.ts",
  "src/grade/grade-claims-edges.test.ts",
  "src/grade/grade-g1-reasons.test.ts",
  "src/grade/grade-data-flow-candidates.test.ts",
  "src/grade/grade-claims-bounds.test.ts",
  "src/grade/grade-g1-result-shape.test.ts",
  "src/grade/grade-g1-index-matching.test.ts",
  "src/grade/grade-g1-index-uses.test.ts",
  "src/grade/grade-covered.test.ts",
  // The log index's URL matching (literal starts, sorted URLs), covered's early stop, flow sources.
  "src/grade/grade-g1-url-index.test.ts",
];

/** The areas, in the order `npm run mutate` runs them. */
export const AREAS: MutationArea[] = [
  {
    name: "world",
    about: "token expiry, scopes, 429 windows, page-size caps, cursors",
    mutate: [
      "src/world/auth.ts",
      "src/world/paginate.ts",
      "src/world/route-behaviours.ts",
      "src/world/trial-world.ts",
    ],
    tests: [
      "src/world/auth.test.ts",
      "src/world/paginate.test.ts",
      "src/world/route-behaviours.test.ts",
      "src/world/trial-world.test.ts",
      "src/world/edges.test.ts",
      "src/world/engine.test.ts",
      // The auth schemes and request signatures auth.ts and trial-world.ts gained in session 8: the
      // 76.1% re-measure ran without them (most of its survivors were NoCoverage there).
      "src/world/auth-schemes.test.ts",
      "src/world/request-signature.test.ts",
      // hintLevel's terse routes and writable's jobs and staged writes, on the trial alone.
      "src/world/trial-world-mutants.test.ts",
    ],
  },
  {
    name: "grade",
    about: "the G1/G2 grader and value comparison",
    mutate: [
      "src/grade/grade-answer-field.ts",
      "src/grade/string-equality.ts",
      "src/grade/values-equal.ts",
      "src/grade/grade-trial.ts",
      "src/grade/answer-card.ts",
    ],
    tests: [
      "src/grade/grade-answer-field.test.ts",
      "src/grade/string-equality.test.ts",
      "src/grade/grade-trial.test.ts",
      "src/grade/grade-g1.test.ts",
      "src/grade/grade-slots.test.ts",
      "src/grade/grade-canonical.test.ts",
      "src/grade/answer-card.test.ts",
      "src/grade/failure-attribution.test.ts",
      "src/grade/values-equal.test.ts",
      "src/grade/grade-answer-field-edges.test.ts",
      "src/grade/grade-requirements.test.ts",
      "src/grade/explain-verdict.test.ts",
      "src/grade/official-regrade.test.ts",
      "src/grade/grade-trial-edges.test.ts",
      "src/grade/grade-trial-resolved.test.ts",
      "src/grade/answer-card-edges.test.ts",
      "src/grade/failed-requirement.test.ts",
      "src/grade/grade-trial-segments.test.ts",
      "src/grade/values-equal-world.test.ts",
      // answerAccepts against G2's own verdict, by comparator (and G1 reading the card with it).
      "src/grade/grade-g1-card-comparator.test.ts",
      // Answer fields by their prepared kind, a grade's keys, a card of one fence or none.
      "src/grade/grade-trial-prepared.test.ts",
    ],
  },
  {
    name: "analyze",
    about: "cluster-robust intervals, compare, bootstrap",
    // The coverage simulation (cluster-robust-coverage.test.ts) is left out: seconds of CPU per mutant.
    mutate: [
      "src/analyze/cluster-robust.ts",
      "src/analyze/compare-runs.ts",
      "src/analyze/cluster-bootstrap.ts",
    ],
    tests: [
      "src/analyze/cluster-robust.test.ts",
      "src/analyze/cluster-robust-edges.test.ts",
      "src/analyze/compare-runs.test.ts",
      "src/analyze/compare-runs-edges.test.ts",
      "src/analyze/cluster-bootstrap.test.ts",
      "src/analyze/cluster-bootstrap-exact.test.ts",
    ],
  },
  {
    name: "analyze-null",
    about: "null model, consensus screen",
    mutate: ["src/analyze/null-model.ts", "src/analyze/consensus-screen.ts"],
    tests: [
      "src/analyze/null-model.test.ts",
      "src/analyze/null-model-edges.test.ts",
      "src/analyze/consensus-screen.test.ts",
      "src/analyze/consensus-screen-edges.test.ts",
    ],
  },
  {
    name: "run",
    about: "resume (--redo) and the model-call retry",
    // run-into-dir.ts: only its resume part (which stored trials are kept, which redone, the skip).
    // The line range must follow that code when the file changes.
    mutate: ["src/agents/model-call-retry.ts", "src/run/redo-outcomes.ts", "src/run/run-into-dir.ts:137-168"],
    tests: [
      "src/agents/call-with-retries.test.ts",
      "src/agents/model-call-retry.test.ts",
      "src/run/resume.test.ts",
      "src/run/agent-error.test.ts",
    ],
  },
  {
    name: "certify",
    about: "certification gates and exploits: requirement mutants' verdict, the exploit audit",
    // The gates that decide a verdict from the grades they are given. Their generators (golden
    // mutants and edits, legitimate variants: ~1,500 lines) and the gates that replay whole worlds
    // (premises, axis necessity: tests of 5-20 s each under load) are listed below as not yet
    // mutated: they did not fit the shared machine in the session that added this area.
    mutate: [
      "src/certify/requirement-gates.ts",
      "src/certify/exploit-audit.ts",
      "src/certify/exploits/exploit-kit.ts",
    ],
    tests: [
      "src/certify/requirement-gates.test.ts",
      "src/certify/requirement-kills.test.ts",
      "src/certify/requirement-gates-golden-failures.test.ts",
      "src/certify/exploit-audit.test.ts",
      "src/certify/exploit-audit-report.test.ts",
      "src/certify/exploits/exploit-kit.test.ts",
      "src/certify/exploits/exploit-kit-session.test.ts",
      "src/certify/exploits/positive-controls.test.ts",
      "src/certify/exploits/matching-exploits.test.ts",
      "src/certify/exploit-audit-trials.test.ts",
      "src/certify/exploits/exploit-kit-released.test.ts",
    ],
    // The other gates are areas of their own below (certify-axis-necessity, certify-legitimate-
    // variants, certify-premises, certify-triad, certify-chain-replay, certify-golden-edits and the
    // three certify-golden-mutants areas).
  },
  {
    // The small attacks, one module each. The probing attacks are the next area.
    name: "certify-exploits",
    about: "the exploits themselves: each must attack, and pass a grader broken for it",
    mutate: [
      "src/certify/exploits/canary-shaped.ts",
      "src/certify/exploits/decoy-reader.ts",
      "src/certify/exploits/done-without-card.ts",
      "src/certify/exploits/echo-ticket.ts",
      "src/certify/exploits/encoded-decoy.ts",
      "src/certify/exploits/every-plausible-value.ts",
      "src/certify/exploits/no-op-write.ts",
      "src/certify/exploits/replay-other-run.ts",
      "src/certify/exploits/replay-other-trial.ts",
      "src/certify/exploits/report-blocked.ts",
      "src/certify/exploits/store-without-use.ts",
      "src/certify/exploits/vault-copy.ts",
      "src/certify/exploits/wrong-response-value.ts",
    ],
    // Not exploit-audit.test.ts: it plays every exploit on every task, so it would run for every
    // mutant; what it claims of each exploit is restated per exploit in exploit-attacks.test.ts.
    tests: [
      "src/certify/exploits/exploit-attacks.test.ts",
      "src/certify/exploits/every-plausible-value.test.ts",
      "src/certify/exploits/wrong-response-value.test.ts",
      "src/certify/exploits/positive-controls.test.ts",
      "src/certify/exploits/matching-exploits.test.ts",
      "src/certify/exploits/wrong-response-value-reads.test.ts",
      "src/certify/exploits/replay-other-run-name.test.ts",
      "src/certify/exploits/exploit-null-values.test.ts",
      // The replays' verdict-only shortcut: they answer at once where the other card fails alone.
      "src/certify/card-fails-alone.test.ts",
    ],
  },
  {
    // The probing attacks: an area of their own, so certify-exploits' incremental file stays valid.
    // Each is pinned move by move in its own test file on the skeleton bank (positive control
    // included); exploit-attacks.test.ts and matching-exploits.test.ts (the default bank) are left out.
    name: "certify-exploits-probing",
    about: "the probing exploits: each attacks where it applies, and passes a grader broken for it",
    mutate: [
      "src/certify/exploits/skip-ungraded.ts",
      "src/certify/exploits/header-smuggle.ts",
      "src/certify/exploits/spec-examples.ts",
      "src/certify/exploits/brute-force-ids.ts",
    ],
    tests: [
      "src/certify/exploits/skip-ungraded.test.ts",
      "src/certify/exploits/header-smuggle.test.ts",
      "src/certify/exploits/spec-examples.test.ts",
      "src/certify/exploits/brute-force-ids.test.ts",
      "src/certify/exploits/brute-force-ids-edges.test.ts",
      "src/certify/exploits/header-smuggle-edges.test.ts",
      "src/certify/exploits/skip-ungraded-edges.test.ts",
    ],
  },
  {
    // The gate's verdict. Its tests are the focused ones: the gate on the skeleton's harbour world
    // (seconds in all) and each axis's blind rewrite on hand-built segments (milliseconds);
    // axis-necessity.test.ts replays the default bank (5-20 s a test under load, each covering most
    // of the gate) and would run for every mutant.
    name: "certify-axis-necessity",
    about: "the golden played blind to its axis must fail: the gate's verdict, a chain's blind segments",
    mutate: ["src/certify/axis-necessity.ts"],
    tests: [
      "src/certify/axis-necessity-checks.test.ts",
      "src/certify/axis-necessity-lookups.test.ts",
      "src/certify/axis-blind.test.ts",
      // The second play of a statefulness task (blind to the re-read only), on the harbour world.
      "src/certify/axis-necessity-reread.test.ts",
      // The client's wrong verb retried blind in GraphQL/MCP (refusedVerbCall), on the harbour world.
      "src/certify/axis-necessity-wrong-verb.test.ts",
    ],
  },
  {
    // Each axis's blind agent, on hand-built segments only: the gate's tests on the harbour world
    // replay whole trials (seconds per mutant under load, ~870 mutants with the gate's file: over
    // an hour on the shared machine), so a rewrite they alone would catch counts as surviving here.
    // The file (~650 mutants) is measured by line ranges of whole functions, each its own area (the
    // ranges must follow the code when the file changes). This one: the dispatch, pagination and auth.
    name: "certify-axis-blind",
    about: "each axis's blind agent: the dispatch, one page, no re-mint, no signing",
    mutate: ["src/certify/axis-blind.ts:1-265"],
    tests: [
      "src/certify/axis-blind.test.ts",
      "src/certify/axis-blind-pages-auth.test.ts",
      "src/certify/axis-blind-calls.test.ts",
      "src/certify/axis-blind-reread-segments.test.ts",
    ],
  },
  {
    // The rest of axis-blind.ts: discovery, schema repair and error recovery, statefulness, multistep.
    name: "certify-axis-blind-calls",
    about: "each axis's blind agent: the first candidate, the client's call, no re-read, no follow-through",
    mutate: ["src/certify/axis-blind.ts:266-547"],
    tests: [
      "src/certify/axis-blind.test.ts",
      "src/certify/axis-blind-pages-auth.test.ts",
      "src/certify/axis-blind-calls.test.ts",
      "src/certify/axis-blind-reread-segments.test.ts",
    ],
  },
  {
    // Not abandoned-duplicate.test.ts nor other-route-variants.test.ts: they build the default bank
    // when imported (tens of seconds under load) and call legitimateVariants over all its tasks
    // there, so every mutant of the file would run them; nor requirement-gates.test.ts (whole
    // certifications). What they claim of the variants is restated on the skeleton's harbour world,
    // step by step, in legitimate-variants-kinds.test.ts.
    name: "certify-legitimate-variants",
    about: "what a careful agent may do differently must pass: failed attempts, extra reads, other routes",
    mutate: ["src/certify/legitimate-variants.ts"],
    tests: [
      "src/certify/legitimate-variants.test.ts",
      "src/certify/legitimate-variants-kinds.test.ts",
      "src/certify/legitimate-variants-edges.test.ts",
      "src/certify/legitimate-variants-rules.test.ts",
    ],
  },
  {
    // premises-checks.test.ts: each check on the skeleton's harbour world. premises.test.ts builds
    // the default bank twice and writes it to disk (over a minute under load) for every mutant.
    name: "certify-premises",
    about: "what a ticket claims the world did is what the world does",
    mutate: ["src/certify/premises.ts"],
    // premises-mutants.test.ts: the nonce-counter claims (solo, a chain's per segment, carried by a
    // chain) on the harbour world with a signed read added, and the call checks left open.
    tests: ["src/certify/premises-checks.test.ts", "src/certify/premises-mutants.test.ts"],
  },
  {
    name: "certify-native-rest",
    about:
      "a GraphQL/MCP step read back as the REST call it stands for, so axis-blind rewrites reach variants",
    mutate: ["src/certify/native-rest.ts"],
    tests: [
      "src/certify/native-rest.test.ts",
      "src/certify/native-rest-mutants.test.ts",
      "src/certify/variant-wrong-verb.test.ts",
      "src/certify/hint-grading-variants.test.ts",
    ],
  },
  {
    name: "certify-triad",
    about: "the answer key passes; the blank exam and every sabotage fail",
    mutate: ["src/certify/triad.ts"],
    tests: [
      "src/certify/triad.test.ts",
      "src/certify/triad-protocols.test.ts",
      "src/certify/triad-canary-exams.test.ts",
      "src/certify/triad-exam-steps.test.ts",
      "src/certify/triad-expected-card.test.ts",
      // sameCall through the answer key's played exchanges (method and URL).
      "src/certify/triad-played-requests.test.ts",
    ],
  },
  {
    name: "certify-chain-replay",
    about: "a chain's golden passes; each negative replay (skipped segment, wrong value, decoy) fails",
    mutate: ["src/certify/chain-replay.ts"],
    // triad-exam-steps.test.ts: the chain's decoy replays get the triad's trials (shared by name).
    tests: [
      "src/certify/chain-replay.test.ts",
      "src/certify/chain-replay-steps.test.ts",
      "src/certify/triad-exam-steps.test.ts",
      "src/certify/chain-replay-reads.test.ts",
    ],
  },
  {
    // What the requirement-mutant and legitimate-variant gates read off a golden, and their edits.
    // Not repeat-mutant.test.ts: it builds the default bank (tens of seconds under load) for every
    // mutant; what it pins of the repeat is restated on the skeleton's chain in
    // golden-mutants-requirements.test.ts. Nor requirement-gates.test.ts (trials per mutant).
    name: "certify-golden-edits",
    about: "the step facts and edits the requirement mutants and legitimate variants are made of",
    mutate: ["src/certify/golden-edits.ts"],
    tests: [
      "src/certify/golden-edits.test.ts",
      "src/certify/golden-mutants-requirements.test.ts",
      "src/certify/golden-edits-edges.test.ts",
      "src/certify/golden-edits-native-repeat.test.ts",
    ],
  },
  {
    // golden-mutants.ts (~970 lines) is measured by line ranges of whole functions, each its own
    // area (the ranges must follow the code when the file changes). This one, first: the operators
    // that break a requirement (which step a requirement's call is, and the mutant of each
    // requirement kind). Its tests pin each mutant's steps without a trial, on the requirement
    // world and the skeleton's harbour world. Not requirement-gates.test.ts (which plays some of
    // them against a grader): its trials made each mutant ~8 s on the loaded machine.
    name: "certify-golden-mutants",
    about: "each requirement broken alone: the mutant of each requirement kind, at the step it names",
    mutate: ["src/certify/golden-mutants.ts:384-553"],
    tests: ["src/certify/golden-mutants-requirements.test.ts"],
  },
  {
    // The requirement operators' helpers, in three areas (one run of all ~700 mutants did not fit
    // the loaded machine): end state, repeat (a chain's re-mint), the sibling before, a header's
    // value and their small helpers.
    name: "certify-golden-mutants-operators",
    about: "the requirement operators: end state, repeat, sibling before, header",
    mutate: ["src/certify/golden-mutants.ts:554-778"],
    tests: [
      "src/certify/golden-mutants-requirements.test.ts",
      "src/certify/golden-mutants-operators.test.ts",
      "src/certify/golden-mutants-operators-edges.test.ts",
      "src/certify/golden-mutants-refresh-token.test.ts",
    ],
  },
  {
    // Value flows (fabricated uses, a dropped store, a wrong card) and the stopped walk of `covered`.
    name: "certify-golden-mutants-flows",
    about: "the value-flow operators: fabricated uses, dropped store, wrong card, stopped walk",
    mutate: ["src/certify/golden-mutants.ts:779-942"],
    tests: [
      "src/certify/golden-mutants-requirements.test.ts",
      "src/certify/golden-mutants-operators.test.ts",
      "src/certify/golden-mutants-operators-edges.test.ts",
      "src/certify/golden-mutants-flows.test.ts",
    ],
  },
  {
    // The forbidden call of stay_canonical and its concrete URL; the chain segment of a step.
    name: "certify-golden-mutants-forbidden",
    about: "the forbidden-call operator and its URL; a step's chain segment",
    mutate: ["src/certify/golden-mutants.ts:943-1049"],
    tests: [
      "src/certify/golden-mutants-requirements.test.ts",
      "src/certify/golden-mutants-operators.test.ts",
      "src/certify/golden-mutants-forbidden.test.ts",
    ],
  },
  {
    // The per-step mutants of banks without requirements as data (the five operators of issue 9).
    name: "certify-golden-mutants-steps",
    about: "per-step mutants of banks without requirements: other value, sibling, repeat, drop, swap",
    mutate: ["src/certify/golden-mutants.ts:1-199"],
    tests: ["src/certify/golden-mutants-requirements.test.ts", "src/certify/golden-mutants-steps.test.ts"],
  },
  {
    // Split from certify-golden-mutants-steps likewise: the per-step mutants' helpers (a request
    // sent again, the order that matters, a job's group, other values, the sibling target).
    name: "certify-golden-mutants-step-values",
    about: "the per-step mutants' helpers: repeats, other values, sibling target",
    mutate: ["src/certify/golden-mutants.ts:200-315"],
    tests: ["src/certify/golden-mutants-requirements.test.ts", "src/certify/golden-mutants-steps.test.ts"],
  },
  {
    // Split from certify-golden-mutants-steps (a rerun of 1-370 did not fit the loaded machine): the
    // extra delete of sibling_also (a seeded sibling, else the listing's first record, read in the
    // world's protocol by inWorldProtocol, which the forbidden call uses too) and the records a
    // requirement's `where` means.
    name: "certify-golden-mutants-siblings",
    about: "sibling_also's other record, and which records are siblings",
    mutate: ["src/certify/golden-mutants.ts:316-383"],
    tests: ["src/certify/golden-mutants-requirements.test.ts", "src/certify/golden-mutants-steps.test.ts"],
  },
  {
    // Split from "grade": the whole file is ~1,000 mutants, over an hour at concurrency 1 on the
    // shared machine, so it is measured by line ranges of whole functions, each its own area
    // (grade-g1-prepare, grade-g1, grade-g1-flows, grade-g1-index; the ranges must follow the code
    // when the file changes). This one: the predicate dispatch, call counts, orderings (plain, from
    // the first before, ranked over a chain's segments) and end state.
    name: "grade-g1",
    about: "the G1 grader: dispatch, call counts, orderings, end state",
    mutate: ["src/grade/grade-g1.ts:537-853"],
    // G1_TESTS, and the determinism property test: this range holds the predicates it replays.
    tests: [
      ...G1_TESTS,
      "src/grade/grade-trial.test.ts",
      "src/grade/grade-g1-order-covered-edges.test.ts",
      // isLastPage's edges: an unquoted rel=next, a bare-array listing, a bodiless 200.
      "src/grade/grade-covered-last-page.test.ts",
    ],
  },
  {
    name: "grade-g1-prepare",
    about: "the G1 grader: entry points, preparing a grader (segment ranks, claim groups, reasons)",
    mutate: ["src/grade/grade-g1.ts:1-536"],
    tests: [
      ...G1_TESTS,
      "src/grade/grade-g1-prepare-edges.test.ts",
      // groupClaims' key: creates by what they mint, refresh tokens by their source as written.
      "src/grade/grade-claim-groups-key.test.ts",
      // The answer field a data flow reads the card with (prepareGrader, cardFieldOf).
      "src/grade/grade-g1-card-comparator.test.ts",
    ],
  },
  {
    name: "grade-g1-flows",
    about:
      "the G1 grader: data flows (sources, claims across segments, card, store, later use), constraints, checkpoints",
    mutate: ["src/grade/grade-g1.ts:854-1119"],
    tests: [
      ...G1_TESTS,
      "src/grade/grade-claims-other-sources.test.ts",
      // Which create flows share a source in the log (sharedSources): by route and status.
      "src/grade/grade-claims-sharing.test.ts",
      // A card value read with the answer field's G2 comparator (cardCarries): tolerance, sets, booleans.
      "src/grade/grade-g1-card-comparator.test.ts",
      // A claim offered only the values its sources' records hold (pushRecordValues in claimFrom).
      "src/grade/grade-claims-offered-values.test.ts",
    ],
  },
  {
    name: "grade-g1-index",
    about: "the G1 grader: the log index every predicate reads (matching calls, values in slots, stores)",
    mutate: ["src/grade/grade-g1.ts:1120-1720"],
    // A route pattern names a call whatever query it carries (urlMatches, urlMatchesPattern).
    // TrialContext takes the caller's final state only when made for this trial (seed and log).
    tests: [
      ...G1_TESTS,
      "src/grade/grade-g1-route-query.test.ts",
      "src/grade/grade-g1-final-state-reuse.test.ts",
    ],
  },
  {
    name: "grade-final-state",
    about: "the final state: records a selector picks, record references resolved, the decisive record",
    mutate: ["src/grade/final-state.ts"],
    tests: [
      "src/grade/final-state.test.ts",
      "src/grade/final-state-edges.test.ts",
      "src/grade/grade-end-state.test.ts",
      "src/grade/grade-trial-resolved.test.ts",
      "src/grade/grade-requirements.test.ts",
      "src/grade/grade-g1-unresolved.test.ts",
      "src/grade/grade-call-count.test.ts",
      // Final records that answer by their text (a stored log's RECORDS_HOLDING), a selector mixing
      // a canary with plain values.
      "src/grade/final-state-mutants.test.ts",
      // TrialFinalState wrapping a state made for another trial: its records, the deleted ones too.
      "src/grade/grade-g1-final-state-reuse.test.ts",
      "src/grade/trial-final-state.test.ts",
      // A whole number asked as a string, found by its digits; a canary's text asked first.
      "src/grade/final-state-numbers.test.ts",
    ],
  },
];
