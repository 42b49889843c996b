// The worker side of baton, for hosts: run one attempt, carry tasks and results.
export { runWorker, type WorkerOptions, type WorkerRun } from './worker.ts';
export { encodeTask, decodeTask, MAX_TASK_INPUT, TaskDecodeError, TaskTooLargeError } from './task.ts';
export { WorkerSetupError, preflight, findExecutable, checkCredentials } from './preflight.ts';
export { BACKEND_IMPLS, backendFor, type AgentBackend, type Invocation, type InvocationOptions, type Parsed, type Usage } from './backends/index.ts';
export { collectChanges, type CollectedChanges, type DiffStatLine } from './changes.ts';
export { writeResultDir, readResultDir, readResultZip, RESULT_ARTIFACT, type ResultBundle, type WorkerResult, type FileChange } from './result.ts';
