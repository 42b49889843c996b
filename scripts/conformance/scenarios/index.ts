/**
 * Every scenario, in the order they run. Adding one: write it in a file of its kind, name its
 * assumption (a FIDELITY.md row, or a key of readings.ts whose every value it can tell apart),
 * and list it here; the emulator test runs it under each value of its reading.
 */
import type { Scenario } from '../types.ts';
import { artifactHiddenFiles, tokenPullRequestRuns, workflowRunAfterTokenDispatch } from './actions.ts';
import { checkSuiteHeadBranch, oneSuitePerApp } from './check-suites.ts';
import { customRefDeliveries } from './deliveries.ts';
import { forkShaRef, forkSuiteHeadBranch } from './forks.ts';
import { checkSummaryBytes, commentCharacters, commentStamps } from './limits.ts';
import { secondaryLimitIdentity, secondaryLimitShape } from './rate-limits.ts';
import { customRefNamespace, customRefPushRuns, refCreateRace } from './refs.ts';
import { newRefAfterWorkflowChange, refUpdateWorkflows, workflowRefusalAt } from './workflow-files.ts';

export const SCENARIOS: readonly Scenario[] = [
  customRefNamespace,
  refCreateRace,
  workflowRefusalAt,
  refUpdateWorkflows,
  newRefAfterWorkflowChange,
  checkSummaryBytes,
  commentCharacters,
  commentStamps,
  oneSuitePerApp,
  checkSuiteHeadBranch,
  forkSuiteHeadBranch,
  forkShaRef,
  customRefDeliveries,
  customRefPushRuns,
  tokenPullRequestRuns,
  workflowRunAfterTokenDispatch,
  artifactHiddenFiles,
  secondaryLimitIdentity,
  // Last: it reports what every other scenario's requests met.
  secondaryLimitShape,
];
