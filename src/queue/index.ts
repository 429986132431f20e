/**
 * Grids larger than one machine: `apiflow run --queue` enqueues trials as BullMQ jobs on Redis,
 * `apiflow worker`s run them, and the coordinator collects results into the run directory. Not
 * re-exported from the package root, so library users who run locally never load BullMQ.
 *
 * @example
 * import { parseQueueUrl, runViaQueue, startQueueWorker } from "./queue/index.js";
 */
export { type RunViaQueueError, type RunViaQueueOptions, runViaQueue } from "./queue-coordinator.js";
export { QUEUE_PREFIX, queueSideKeys } from "./queue-keys.js";
export {
  checkRedis,
  parseQueueUrl,
  type QueueAddress,
  type QueueConnection,
  type QueueUrlError,
} from "./queue-url.js";
export {
  type JobRefusal,
  type QueueWorkerHandle,
  type QueueWorkerOptions,
  startQueueWorker,
} from "./queue-worker.js";
export { RateLimitNoticeSchema, SharedAimdLimiter, SharedRateLimit } from "./shared-rate-limit.js";
export {
  DEFAULT_QUEUE_NAME,
  TRIAL_JOB_VERSION,
  type TrialJob,
  type TrialJobResult,
  TrialJobResultSchema,
  TrialJobSchema,
  trialJobId,
} from "./trial-job.js";
