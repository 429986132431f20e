import type { Premise } from "../bank/premise-schema.js";
import type { Rng } from "../bank/rng.js";
import {
  type Axis,
  type ExpectedValue,
  type G1Predicate,
  type GoldenStep,
  type RecordRef,
  type RecordSelector,
  type Subtask,
  WhereValueSchema,
} from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { credentialField, credentialHeader, credentialNoun } from "../world/credential.js";
import type { BuiltWorld, SlotKind, SymRecord } from "./build-world.js";
import type { TokenLedger } from "./golden-builder.js";

export type Difficulty = Subtask["difficulty"];
export type Coupling = "none" | "value" | "state";

/** A value an earlier position left in a workspace variable for later positions to consume. */
export interface Planted {
  position: number;
  variable: string;
  scope: "local" | "global";
  value: ExpectedValue;
  /** Index of the work record the value identifies. */
  workIndex: number;
}

/**
 * A broken call a ticket quotes, with the status and error code the ticket says it got. Tests
 * replay it against the world in the state the storyline left, so every quoted error is truthful.
 */
export interface Probe {
  method: string;
  url: string;
  body?: Record<string, unknown>;
  /** `stale`: a token nobody issued; `fresh`: one just minted; `expired`: one spent to its TTL. */
  token: "stale" | "fresh" | "expired";
  /** Logical seconds to wait (`x-apiflow-wait`) before the call, after the token is minted. */
  wait?: number;
  status: number;
  error?: string;
  /** The error message the ticket quotes verbatim, when it quotes one. */
  message?: string;
}

/** A generated subtask: the bank's `Subtask` plus what composing and testing need. */
export interface GenSubtask extends Subtask {
  template: string;
  coupling: Coupling;
  /** One-line version of the ticket for a chain's compressed instruction. */
  brief: string;
  /** The story parts of `brief` (the rest of it is its requirements' briefs). */
  briefStory?: string[];
  probes: Probe[];
  /** What else the ticket claims about the world (e.g. the body fields the spec documents). */
  premises?: Premise[];
  /** The golden as a chain segment (shared token, no answer step); set by the storyline. */
  chainGolden?: GoldenStep[];
  /** Renders `chainGolden`; set by `subtask()`. */
  chained?: (ledger: TokenLedger) => GoldenStep[];
}

/**
 * The world as the storyline has left it, tracked symbolically (literals and canary references),
 * so each position's ticket, golden and grader describe the state the earlier goldens produced.
 */
export class StoryState {
  readonly assets: SymRecord[];
  readonly work: SymRecord[] = [];
  readonly planted: Planted[] = [];
  /** Variables the goldens so far stored: seeded into the workspace of later solo tasks. */
  readonly variables: { local: Record<string, ExpectedValue>; global: Record<string, ExpectedValue> } = {
    local: {},
    global: {},
  };
  private readonly used = new Set<number>();
  private readonly consumed = new Set<string>();
  /** Assets whose values a golden stored in a variable (later solo workspaces hold them). */
  readonly stored = new Set<SymRecord>();
  private readonly claimedSlots = new Set<string>();
  /** Listing questions already asked, so two positions never share one. */
  readonly asked = new Set<string>();

  /**
   * Assets a pagination question may name (the top two of every ranking it can ask): other
   * positions claim them last, so a ranking's winner is not a record another position reads.
   */
  private readonly reserved = new Set<number>();

  constructor(readonly built: BuiltWorld) {
    this.assets = built.assets.map((r) => ({ ...r }));
    const a = built.template.asset;
    const num = (r: SymRecord) => Number(r[a.numberField.name]);
    for (const cat of ["", ...a.enumField.values]) {
      const pool = this.assets
        .map((r, i) => ({ r, i }))
        .filter(({ r }) => cat === "" || r[a.enumField.name] === cat);
      for (const dir of [1, -1]) {
        const sorted = [...pool].sort((x, y) => dir * (num(y.r) - num(x.r)));
        for (const { i } of sorted.slice(0, 2)) this.reserved.add(i);
      }
    }
  }

  /** Asset indexes in claiming order: unused and unreserved first, then unused, then the rest. */
  private claimOrder(rng: Rng): number[] {
    const all = this.assets.map((_, i) => i);
    const free = all.filter((i) => !this.used.has(i));
    return [
      ...rng.shuffle(free.filter((i) => !this.reserved.has(i))),
      ...rng.shuffle(free.filter((i) => this.reserved.has(i))),
      ...rng.shuffle(all.filter((i) => this.used.has(i))),
    ];
  }

  /** An asset no earlier position has targeted (targets stay distinct so tickets stay distinct). */
  claimAsset(rng: Rng): SymRecord {
    const i = this.claimOrder(rng)[0] as number;
    this.used.add(i);
    return this.assets[i] as SymRecord;
  }

  /** `n` distinct assets, unused ones first; marks them used. */
  claimAssets(rng: Rng, n: number): SymRecord[] {
    const order = this.claimOrder(rng);
    return order.slice(0, n).map((i) => {
      this.used.add(i);
      return this.assets[i] as SymRecord;
    });
  }

  /** A behaviour route no earlier position has used (see `BEHAVIOUR_SLOTS`), or null when all are taken. */
  claimSlot(kind: SlotKind): string | null {
    const free = this.built.slots[kind].find((n) => !this.claimedSlots.has(`${kind}:${n}`));
    if (free === undefined) return null;
    this.claimedSlots.add(`${kind}:${free}`);
    return free;
  }

  /** Whether a position already named or targeted this asset. */
  isUsed(record: SymRecord): boolean {
    return this.used.has(this.assets.indexOf(record));
  }

  /** Mark an asset as named by a position, so later positions target others. */
  markUsed(record: SymRecord): void {
    this.used.add(this.assets.indexOf(record));
  }

  assetId(record: SymRecord): string {
    return String(record[this.built.template.asset.idField]);
  }

  /**
   * Record a created work record; returns its id as a reference to the record by its role in the
   * final state (the work record opened for this asset at this level), never by creation order, so
   * an agent's extra failed or abandoned create does not move it. Two work records of a storyline
   * never share asset and level, so the reference names one record in every task of the world.
   */
  createWork(fields: SymRecord, options: { storedAs?: (key: string) => string } = {}): RecordRef {
    const w = this.built.template.work;
    const assetKey = this.built.template.asset.idField;
    // A route that stores the body as sent (the camelCase dispatch intake) keeps its own keys.
    const key = options.storedAs ?? ((k: string) => k);
    const asset = fields[assetKey];
    const level = fields[w.levelField.name];
    if (typeof asset !== "string" || typeof level !== "string")
      throw new Error(`a work record needs a literal ${assetKey} and ${w.levelField.name}`);
    if (this.work.some((r) => r[assetKey] === asset && r[w.levelField.name] === level))
      throw new Error(
        `two ${w.plural} records for ${asset} at level ${level}: a record reference would name both`,
      );
    // The copied value (the one the ticket asks to carry) is part of the role: a create that sent another (typed
    // by hand, refused or abandoned) is not the record the ticket asks for, and does not make it
    // ambiguous.
    const copy = WhereValueSchema.safeParse(fields[w.copyField]);
    const copied = copy.success && copy.data !== null;
    const ref: RecordRef = {
      $record: {
        resource: w.plural,
        where: {
          [key(assetKey)]: asset,
          [key(w.levelField.name)]: level,
          ...(copied ? { [key(w.copyField)]: copy.data } : {}),
        },
        role: `the ${w.noun} opened for ${asset} at level ${level}${copied ? ` carrying the ${w.copyField} asked` : ""}`,
      },
      field: w.idField,
    };
    this.mintedIds.set(ref, this.built.workId(this.work.length + 1));
    this.work.push({ ...fields, [w.idField]: ref, [w.statusField]: w.initialStatus });
    return ref;
  }

  /**
   * The records an "exactly one" count runs over: the work records for `ref`'s asset at its level,
   * whatever copied value they carry. The reference names the record the ticket asks for by its
   * copied value too (an abandoned create that sent another value must not make it ambiguous), but
   * a second record written with another value is still a second record (agent audit dec: two
   * credit notes confirmed, one with a made-up `mandate_ref`, counted as one).
   */
  countScope(ref: RecordRef): RecordSelector {
    const w = this.built.template.work;
    const { [w.copyField]: _copied, ...where } = ref.$record.where;
    const role = ref.$record.role?.replace(/ carrying the \S+ asked$/, "");
    return { resource: ref.$record.resource, where, ...(role ? { role } : {}) };
  }

  /** Creation-order ids of the work records, for workspace seeds only (see `seedValue`). */
  private readonly mintedIds = new Map<RecordRef, ExpectedValue>();

  /**
   * A value as a solo task's workspace seed: a work record's reference becomes the id the setup
   * replay mints for it. (The setup is the storyline's goldens, replayed exactly before the agent
   * starts, so its creation order is fixed; graders never use it.)
   */
  seedValue(value: ExpectedValue): ExpectedValue {
    return this.mintedIds.get(value as RecordRef) ?? value;
  }

  /** Work records a golden deleted (their index in `work` stays, so minted ids keep their numbers). */
  readonly removed = new Set<number>();

  /** Whether a work record other than the one at `index` is still in the world (not deleted). */
  hasLiveWorkBesides(index: number): boolean {
    return this.work.some((_, i) => i !== index && !this.removed.has(i));
  }

  /** Record that a golden deleted the work record at `index`. */
  removeWork(index: number): void {
    this.removed.add(index);
  }

  plant(p: Planted): void {
    this.planted.push(p);
    this.variables[p.scope][p.variable] = this.seedValue(p.value);
  }

  /**
   * A planted work id no later position has consumed yet, if any (each is consumed once); with
   * `fits`, only one it accepts.
   */
  takePlanted(rng: Rng, fits: (p: Planted) => boolean = () => true): Planted | null {
    const open = this.planted.filter((p) => !this.consumed.has(p.variable) && fits(p));
    if (open.length === 0) return null;
    const chosen = rng.pick(open);
    this.consumed.add(chosen.variable);
    return chosen;
  }

  /** A variable name for a value about one asset, unique within the storyline. */
  variableFor(prefix: string, record: SymRecord): string {
    return `${prefix}_${this.assetId(record)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")}`.replace(/_+$/, "");
  }
}

/** Escape a literal for a RegExp. */
export const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** G1: the decisive value must travel from this response to the answer card. */
export function flowToAnswer(
  id: string,
  url: string,
  status: number,
  key: string,
  field: string,
  explain: string,
): G1Predicate {
  return {
    kind: "data_flow",
    id,
    explain,
    from_response_url_pattern: `^${re(url)}$`,
    from_status: status,
    from_body_key: key,
    answer_field: field,
    must_be_stored: false,
    used_in_request_url_pattern: null,
  };
}

/** G1: like `flowToAnswer`, from any page of a listing (the URL may carry a query string). */
export function flowToListingAnswer(
  id: string,
  url: string,
  status: number,
  key: string,
  field: string,
  explain: string,
): G1Predicate {
  return {
    kind: "data_flow",
    id,
    explain,
    from_response_url_pattern: `^${re(url)}(\\?.*)?$`,
    from_status: status,
    from_body_key: key,
    answer_field: field,
    must_be_stored: false,
    used_in_request_url_pattern: null,
  };
}

/** G1: a minted token (or API key) must be used on a request to this URL, in the world's scheme. */
export function tokenUsed(auth: World["auth"], url: string, id = "fresh_token_used"): G1Predicate {
  const header = credentialHeader(auth, "x")[0].toLowerCase();
  return {
    kind: "data_flow",
    id,
    explain: `A fresh ${credentialNoun(auth)} must be obtained from the token endpoint and then sent on the call that matters.`,
    from_response_url_pattern: `^${re(auth.token_path)}$`,
    from_status: 200,
    from_body_key: credentialField(auth),
    must_be_stored: false,
    used_in_request_url_pattern: `^${re(url)}$`,
    used_in_slot: { in: "header", name: header },
  };
}

export const AXES: readonly Axis[] = [
  "auth",
  "discovery",
  "schema_repair",
  "multistep",
  "error_recovery",
  "pagination",
  "statefulness",
];
