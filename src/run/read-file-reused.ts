import { closeSync, openSync, readSync } from "node:fs";

// One buffer per thread, grown to the largest file read; a re-grade reads thousands of small files.
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * A file's bytes read into a buffer this module reuses: the view returned is valid only until the
 * next call, so the caller must copy whatever it keeps. `readFileSync` costs three times as much
 * for a small file (it stats the file, allocates a buffer of its size, then reads again to meet
 * the end of the file): a re-grade reads one stored log per trial. For regular files only (a
 * short read is taken for the end). Throws as `readFileSync` does (ENOENT…).
 *
 * @example const bytes = readFileReused(path); const copy = Buffer.from(bytes);
 */
export function readFileReused(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const grown = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(grown, 0, 0, length);
        scratch = grown;
      }
      const room = scratch.length - length;
      const n = readSync(fd, scratch, length, room, null);
      length += n;
      // A regular file reads short only at its end: no second call to learn that it ended.
      if (n < room) return scratch.subarray(0, length);
    }
  } finally {
    closeSync(fd);
  }
}
