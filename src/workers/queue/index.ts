/** The job queue port, its two adapters, and the choice between them. */
export type {
  EnqueueOptions,
  Job,
  JobHandler,
  JobQueue,
  JobState,
  JobStatus,
  JobWorker,
  ProcessOptions,
  QueueDepth,
  QueueOptions,
} from './queue.js';
export { InvalidJobKeyError } from './queue.js';
export { BullmqJobQueue, type BullmqQueueOptions } from './bullmq-queue.js';
export { SqlJobQueue, type SqlQueueOptions } from './sql-queue.js';
export { openJobQueue } from './open-queue.js';
