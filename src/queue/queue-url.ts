import { Redis } from "ioredis";

/** Why a queue address is unusable; one line each, for the CLI. */
export type QueueUrlError =
  | { code: "bad_queue_url"; message: string }
  | { code: "redis_unreachable"; message: string };

/** Where Redis is, as both ioredis and BullMQ take it. */
export interface QueueConnection {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls?: Record<string, never>;
}

/** A parsed `redis://[user:password@]HOST:PORT[/DB]` (or `rediss://` for TLS). */
export interface QueueAddress {
  /** The address with any password masked: safe for messages and logs. */
  display: string;
  connection: QueueConnection;
}

/**
 * Parse `--queue redis://HOST:PORT[/DB]`. A password in the URL is accepted but never shown.
 *
 * @example parseQueueUrl("redis://127.0.0.1:6390") // { success: true, data: { display: "redis://127.0.0.1:6390", connection: { host: "127.0.0.1", port: 6390, db: 0 } } }
 */
export function parseQueueUrl(
  text: string,
): { success: true; data: QueueAddress } | { success: false; error: QueueUrlError } {
  const fail = (why: string) => ({
    success: false as const,
    error: {
      code: "bad_queue_url" as const,
      message: `--queue ${JSON.stringify(mask(text))} ${why}; expected redis://HOST:PORT[/DB]`,
    },
  });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail("is not a URL");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") return fail(`has scheme ${url.protocol}`);
  if (!url.hostname) return fail("has no host");
  const port = url.port === "" ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, "");
  const db = dbText === "" ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) return fail(`has database ${JSON.stringify(dbText)}`);
  if (url.search || url.hash) return fail("has a query or fragment");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const connection: QueueConnection = {
    host,
    port,
    db,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === "rediss:" ? { tls: {} } : {}),
  };
  return { success: true, data: { display: mask(text), connection } };
}

function mask(text: string): string {
  return text.replace(/^(rediss?:\/\/[^:@/]*:)[^@/]*@/, "$1***@");
}

/**
 * Connect once and PING, failing fast: a wrong host or a stopped server is a one-line error before
 * any queue object (which would retry forever) is made.
 *
 * @example const ok = await checkRedis(address); if (!ok.success) throw new UsageError(ok.error.message);
 */
export async function checkRedis(
  address: QueueAddress,
  timeoutMs = 3000,
): Promise<{ success: true } | { success: false; error: QueueUrlError }> {
  const client = new Redis({
    ...address.connection,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // ioredis rejects with "Connection is closed"; the cause (ECONNREFUSED, ENOTFOUND…) is an event.
  let cause: Error | undefined;
  client.on("error", (e: Error) => {
    cause ??= e;
  });
  try {
    await client.connect();
    await client.ping();
    return { success: true };
  } catch (e) {
    const error = cause ?? (e instanceof Error ? e : new Error(String(e)));
    const why = error.message.split("\n")[0];
    return {
      success: false,
      error: { code: "redis_unreachable", message: `cannot reach Redis at ${address.display}: ${why}` },
    };
  } finally {
    client.disconnect();
  }
}
