import type { Axis, Task } from "../bank/task-schema.js";
import { answerCardInstruction } from "./compose.js";

/**
 * A ticket's sentences: split after `.`, `!` or `?` followed by white space, and at line breaks,
 * never inside a code span, a quotation or parentheses (a quoted error message keeps its full
 * stops), nor after `e.g.`/`i.e.` or a list item's number. Sentences without a letter are dropped.
 *
 * @example ticketSentences("Read `a.b`. Then report it.") // ["Read `a.b`.", "Then report it."]
 */
export function ticketSentences(text: string): string[] {
  const out: string[] = [];
  let code = false;
  let quote = false;
  let depth = 0;
  let start = 0;
  const cut = (end: number) => {
    const s = text.slice(start, end).trim();
    if (/\p{L}/u.test(s)) out.push(s);
    start = end;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "`") code = !code;
    if (code) continue;
    if (c === '"') quote = !quote;
    else if (c === "(") depth += 1;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (c === "\n") {
      // A line break ends a sentence whatever is open: a chain's steps are one line each.
      cut(i);
      quote = false;
      depth = 0;
    } else if ((c === "." || c === "!" || c === "?") && !quote && depth === 0) {
      const next = text[i + 1];
      if (next !== undefined && !/\s/.test(next)) continue;
      if (/\b(e\.g|i\.e|etc|vs)\.$/i.test(text.slice(Math.max(0, i - 4), i + 1))) continue;
      // A list item's number ("1. ") opens its sentence.
      if (/^\s*\d+$/.test(text.slice(start, i))) continue;
      cut(i + 1);
    }
  }
  cut(text.length);
  return out;
}

/**
 * Words that state a requirement: a duty (`must`, `make sure`, `needs`), a bound (`only`,
 * `exactly`, `at most`), a prohibition (`never`, `do not`), an order (`before`, `in that order`),
 * what to keep or leave, a request for a value (`I need`, `give me`). Matched outside code spans
 * and quotations (a quoted error or header may say anything). A story avoids them by design: it
 * says what happened, so a word here in a story sentence is a requirement hiding in it.
 */
const DEMAND =
  /\b(must|mustn't|make sure|ensure|should|shall|needs?|has to|have to|wants?|exactly|at most|at least|no more than|no fewer than|no other|only|never|do not|don't|before|in (that |this )?order|keep|leave|avoid|instead of|give me|tell me|please)\b/i;

/**
 * Verbs that open an imperative clause (a sentence or a clause after `:`, `;` or a dash starting
 * with one of them is an order, not a story).
 */
const IMPERATIVE = new Set(
  (
    "add answer approve archive assign attach audit authenticate avoid call cancel carry change check " +
    "choose clear close collect compute confirm copy correct count create delete determine do drain " +
    "fetch find finish fix flag follow gather get give go identify ignore include inspect keep leave " +
    "link list load look make mark mint move note open page patch pause pick poll pull put rank read " +
    "re-read re-run record redo refresh remove rename renew repair replace report reset resend restore " +
    "retry return review run save scan search see select send set settle skip sort start stay stop " +
    "store submit sum take tell trace try update use validate verify wait walk work write"
  ).split(" "),
);

/**
 * Whether a sentence states a requirement: it carries requirement language (see `DEMAND`) or one
 * of its clauses opens with an imperative verb, outside code spans and quotations. A story
 * sentence ("The job gets `401` back.") demands nothing; "Re-run it end to end." does.
 *
 * @example demandsSomething("Check how long a token lives.") // true
 */
export function demandsSomething(sentence: string): boolean {
  const prose = sentence.replace(/`[^`]*`/g, " x ").replace(/"[^"]*"/g, " x ");
  if (DEMAND.test(prose)) return true;
  return prose
    .split(/[:;—]| - /)
    .map(
      (clause) =>
        clause
          .trim()
          .split(/[\s,.]+/)[0]
          ?.toLowerCase() ?? "",
    )
    .some((first) => IMPERATIVE.has(first));
}

/** How a ticket's sentences are accounted for (see `unbackedSentences`). */
export interface TicketAudit {
  /** Sentences that are a requirement's `sentence`, the requirement held by a predicate. */
  backed: string[];
  /** Sentences neither a held requirement's sentence, nor story, nor the card instruction. */
  unbacked: string[];
  /** Story sentences that carry requirement language. */
  storyDemands: string[];
  /** Story parts the ticket does not contain verbatim. */
  storyMissing: string[];
}

/**
 * Accounts for every sentence of a task's ticket: removes the answer card instruction (fixed
 * text, held by the card's fields), the sentences of requirements that a predicate holds (in a
 * chain, each numbered step line only by its own segment's requirements or the chain's), and the
 * recorded story parts (`task.story`); what is left is unbacked. Story parts themselves must not
 * carry requirement language (`demandsSomething`), so an order cannot hide in the story.
 *
 * @example auditTicket(task).unbacked // [] for a ticket stated from its requirements
 */
export function auditTicket(task: Task): TicketAudit {
  const held = heldNames(task);
  const stated = (task.requirements ?? []).filter(
    (r) =>
      r.sentence !== undefined && r.predicates.some((p) => held.has(nameIn(p, r.segment)) || held.has(p)),
  );
  const story = task.story ?? [];
  const audit: TicketAudit = { backed: [], unbacked: [], storyDemands: [], storyMissing: [] };
  for (const part of story) {
    if (!task.ticket.includes(part)) audit.storyMissing.push(part);
    for (const s of ticketSentences(part)) if (demandsSomething(s)) audit.storyDemands.push(s);
  }
  let ticket = task.ticket;
  if (task.grader.answer.length > 0)
    ticket = ticket.replace(answerCardInstruction(task.grader.answer.map((f) => f.field)), "\n");
  for (const { text, segment } of pieces(task, ticket)) {
    const mine = stated.filter(
      (r) => task.kind === "solo" || r.segment === undefined || r.segment === segment,
    );
    // Longest first, so a short sentence never cuts into a longer one it is part of.
    const parts = [
      ...mine.map((r) => ({ text: r.sentence as string, requirement: true })),
      ...story.map((p) => ({ text: p, requirement: false })),
    ].sort((a, b) => b.text.length - a.text.length);
    let rest = text;
    for (const p of parts) {
      if (!rest.includes(p.text)) continue;
      rest = rest.replaceAll(p.text, "\n");
      if (p.requirement) audit.backed.push(p.text);
    }
    audit.unbacked.push(...ticketSentences(rest));
  }
  audit.backed = [...new Set(audit.backed)];
  return audit;
}

/**
 * The bank-level sentence check (issue 15): every sentence of a task's ticket that states a
 * requirement no predicate holds, one finding each. A ticket is its story (`task.story`: what
 * happened, no requirement language), its requirements' sentences (each held by a predicate)
 * and the answer card instruction; any other sentence is unbacked, and so is a story sentence
 * that demands something. `[]` for a ticket stated from its requirements.
 *
 * @example unbackedSentences(task) // ['"Keep the old label." states a requirement no predicate holds']
 */
export function unbackedSentences(task: Task): string[] {
  const a = auditTicket(task);
  return [
    ...a.unbacked.map((s) => `"${s}" states a requirement no predicate holds`),
    ...a.storyDemands.map((s) => `story sentence "${s}" states a requirement`),
    ...a.storyMissing.map((s) => `story part "${s}" is not in the ticket`),
  ];
}

/** Sentence coverage of one slice of a bank (see `sentenceCoverage`). */
export interface SentenceCoverage {
  tasks: number;
  /** Ticket sentences that are a held requirement's sentence. */
  backed: number;
  /** Sentences the check flags (`unbackedSentences`). */
  unbacked: number;
  /** Of the flagged, those that carry requirement language (the rest is unrecorded story). */
  demanding: number;
}

/**
 * The sentence check measured per axis of the solo tasks, and over the chains (`chain`): how many
 * ticket sentences a held requirement states, how many the check flags, and how many of those
 * demand something (on tickets that record no story, story sentences are flagged too; `backed /
 * (backed + demanding)` is the share of instruction sentences stated from requirements).
 *
 * @example sentenceCoverage(bank.tasks).auth // { tasks: 36, backed: 140, unbacked: 0, demanding: 0 }
 */
export function sentenceCoverage(tasks: readonly Task[]): Record<Axis | "chain", SentenceCoverage> {
  const out = {} as Record<Axis | "chain", SentenceCoverage>;
  for (const task of tasks) {
    const key = task.kind === "chain" ? "chain" : (task.axes[0] as Axis);
    const c = out[key] ?? { tasks: 0, backed: 0, unbacked: 0, demanding: 0 };
    out[key] = c;
    const a = auditTicket(task);
    c.tasks += 1;
    c.backed += a.backed.length;
    const flagged = [...a.unbacked, ...a.storyDemands];
    c.unbacked += flagged.length + a.storyMissing.length;
    c.demanding += flagged.filter(demandsSomething).length;
  }
  return out;
}

/** The ticket cut into its pieces: a solo ticket whole; a chain's numbered step lines by segment. */
function pieces(task: Task, ticket: string): Array<{ text: string; segment?: number }> {
  if (task.kind === "solo") return [{ text: ticket }];
  return ticket.split("\n").map((line) => {
    const m = /^(\d+)\.\s+(.*)$/.exec(line);
    const segment = m ? task.positions[Number(m[1]) - 1] : undefined;
    return m && segment !== undefined ? { text: m[2] as string, segment } : { text: line };
  });
}

/** The names a grader holds: predicate and constraint ids, `answer:<field>`; a chain's with `@segment`. */
function heldNames(task: Task): Set<string> {
  const out = new Set<string>();
  for (const p of task.grader.g1) out.add(nameIn(p.id, p.segment));
  for (const c of task.grader.constraints) out.add(c.id);
  for (const f of task.grader.answer) out.add(nameIn(`answer:${f.field}`, f.segment));
  return out;
}

const nameIn = (name: string, segment: number | undefined) =>
  segment === undefined ? name : `${name}@${segment}`;
