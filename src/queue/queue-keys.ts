/** The Redis key prefix of apiflow's queues (BullMQ's `prefix`; its default is `bull`). */
export const QUEUE_PREFIX = "apiflow";

/**
 * Redis names apiflow keeps beside a BullMQ queue. Job ids all start with `trial-`, so these never
 * meet a job's keys.
 *
 * @example queueSideKeys("apiflow-trials").refusals // "apiflow:apiflow-trials:refusals"
 */
export function queueSideKeys(queueName: string) {
  return {
    /** Hash worker id → the last reason it refused a job (read by the coordinator). */
    refusals: `${QUEUE_PREFIX}:${queueName}:refusals`,
    /** Pub/sub channel of rate-limit notices between workers. */
    rateLimits: `${QUEUE_PREFIX}:${queueName}:rate-limits`,
  };
}
