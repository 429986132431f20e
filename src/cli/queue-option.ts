import type { QueueAddress } from "../queue/queue-url.js";
import { parseQueueUrl } from "../queue/queue-url.js";
import { UsageError } from "./io.js";

/**
 * The Redis address of `--queue redis://HOST:PORT[/DB]`; a malformed one is a one-line usage error.
 *
 * @example const address = queueFromOption("redis://127.0.0.1:6390");
 */
export function queueFromOption(text: string): QueueAddress {
  const parsed = parseQueueUrl(text);
  if (!parsed.success) throw new UsageError(parsed.error.message);
  return parsed.data;
}
