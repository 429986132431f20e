/**
 * The lines of UTF-8 text held as bytes (a stored log's JSON Lines, inflated), each decoded to a
 * string only when read. A re-grade reads a log's head and some of its lines: decoding the lines
 * it never reads, and parsing all of them as one string that a single non-ASCII character anywhere
 * turns into two-byte text (slower to decode and to parse), was a tenth of its time. A line break
 * is one byte in UTF-8 and never part of a multi-byte character, so lines are found in the bytes.
 * As `String.split` would, less the empty line after a final line break: "a\nb\n" has two lines,
 * "" one (empty).
 *
 * @example const lines = new ByteLines(Buffer.from('{"a":1}\n[2]\n')); lines.length // 2; lines.text(1) // "[2]"
 */
export class ByteLines {
  readonly length: number;
  readonly #bytes: Buffer;
  /** Where each line ends (its line break, or the end of the bytes); line i starts after line i - 1's end. */
  readonly #ends: number[];

  constructor(bytes: Buffer) {
    const ends: number[] = [];
    let at = 0;
    for (let nl = bytes.indexOf(10, at); nl >= 0; nl = bytes.indexOf(10, at)) {
      ends.push(nl);
      at = nl + 1;
    }
    if (at < bytes.length || ends.length === 0) ends.push(bytes.length);
    this.#bytes = bytes;
    this.#ends = ends;
    this.length = ends.length;
  }

  /** Line `i`'s text (without its line break); undefined past the last line. */
  text(i: number): string | undefined {
    if (i < 0 || i >= this.length) return undefined;
    return this.#bytes.toString("utf8", this.#start(i), this.#ends[i] as number);
  }

  /** The bytes of lines `from` to `to` (excluded; their line breaks kept, but the last one's), as a view. */
  bytesFrom(from: number, to = this.length): Buffer {
    if (from >= to) return this.#bytes.subarray(this.#bytes.length);
    return this.#bytes.subarray(this.#start(from), this.#ends[to - 1] as number);
  }

  #start(i: number): number {
    return i === 0 ? 0 : (this.#ends[i - 1] as number) + 1;
  }
}
