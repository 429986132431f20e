import { gunzipSync, gzipSync } from "node:zlib";

/**
 * A file of several gzip members, each carrying its own compressed size in the gzip header's extra
 * field (RFC 1952 §2.3.1.1, subfield `AF`; the idea of BGZF, SAM/BAM spec §4.1), so that a reader
 * can inflate one member without inflating those before it. To any gzip reader (`zcat`, `gunzip`)
 * the file is the concatenation of the members' texts.
 *
 * @example const bytes = sizedGzip(["head\n", "bulk\n"]); gunzipSync(readSizedGzip(bytes)![1]!).toString() // "bulk\n"
 */
export function sizedGzip(texts: readonly string[]): Buffer {
  return Buffer.concat(texts.map(sizedMember));
}

const HEADER = 10;
const FEXTRA = 0x04;
// XLEN (2 bytes), then one subfield: SI1 SI2 'A' 'F', LEN (2 bytes) = 4, the member's size (4 bytes).
const EXTRA = 2 + 4 + 4;

function sizedMember(text: string): Buffer {
  const plain = gzipSync(text);
  const member = Buffer.alloc(plain.length + EXTRA);
  plain.copy(member, 0, 0, HEADER);
  member[3] = (plain[3] as number) | FEXTRA;
  member.writeUInt16LE(EXTRA - 2, HEADER);
  member.write("AF", HEADER + 2, "latin1");
  member.writeUInt16LE(4, HEADER + 4);
  member.writeUInt32LE(member.length, HEADER + 6);
  plain.copy(member, HEADER + EXTRA, HEADER);
  return member;
}

/**
 * The members of a file written by `sizedGzip` (views into `bytes`, each a whole gzip member to
 * inflate with `gunzipSync`, which checks its checksum); null when the bytes are not such a file
 * (a plain gzip file, or not gzip at all).
 */
export function readSizedGzip(bytes: Uint8Array): Buffer[] | null {
  const members: Buffer[] = [];
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  while (at < view.length) {
    const size = memberSize(view, at);
    if (size === null || at + size > view.length) return null;
    members.push(view.subarray(at, at + size));
    at += size;
  }
  return members.length > 0 ? members : null;
}

function memberSize(view: Buffer, at: number): number | null {
  if (at + HEADER + EXTRA > view.length) return null;
  if (view[at] !== 0x1f || view[at + 1] !== 0x8b || view[at + 2] !== 8) return null;
  if (((view[at + 3] as number) & FEXTRA) === 0) return null;
  if (view.readUInt16LE(at + HEADER) !== EXTRA - 2) return null;
  // 'A' 'F' compared as bytes, not through a string made per member.
  if (view[at + HEADER + 2] !== 0x41 || view[at + HEADER + 3] !== 0x46) return null;
  if (view.readUInt16LE(at + HEADER + 4) !== 4) return null;
  const size = view.readUInt32LE(at + HEADER + 6);
  return size > HEADER + EXTRA ? size : null;
}

/**
 * One member's text (its checksum checked); throws on a damaged member, like `gunzipSync`. A member
 * byte for byte the one `sizedGzip` writes for "" is "" without inflating it: a stored log has a
 * member per resource, a third of the members a re-grade read were empty, and each zlib call costs
 * about as much as inflating 5 KiB (a zlib stream made and closed per call).
 */
export function inflateMember(member: Uint8Array): string {
  if (member.length === EMPTY_MEMBER.length && EMPTY_MEMBER.equals(member)) return "";
  return gunzipMember(member).toString("utf8");
}

const EMPTY_MEMBER = sizedMember("");

/**
 * `gunzipSync` of one gzip member, inflated into one buffer of the size its trailer states (ISIZE,
 * RFC 1952 §2.3.1), plus the byte that lets zlib see the end without asking for more room:
 * `gunzipSync` gives every call a 16 KiB output buffer, and a buffer more and a copy for a longer
 * text. A trailer that lies only costs more buffers (zlib still inflates until the end) or, when it
 * is larger, no more than 1 MiB.
 *
 * @example gunzipMember(gzipSync("head\n")).toString() // "head\n"
 */
export function gunzipMember(member: Uint8Array): Buffer {
  const size =
    member.length >= 4
      ? Buffer.from(member.buffer, member.byteOffset, member.byteLength).readUInt32LE(member.length - 4)
      : 0;
  return gunzipSync(member, { chunkSize: Math.min(Math.max(size + 1, 64), MAX_CHUNK) });
}

const MAX_CHUNK = 1 << 20;
