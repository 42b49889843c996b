// Every bench figure, in the order they are printed. Later issues add theirs here.
import { actionBundleBytes, actionColdStartMs } from './action.ts';
import { cliHelpMs, cliHelpVsNode, mcpInitializeMs, mcpInitializeVsNode, nodeBareMs } from './cli-start.ts';
import { appMsPerEventP95, commentEditsPerAgentStep, requestsPerAgentStep, webhookToCallsP95Ms } from './app.ts';
import { deliveryWorkMsP95, emulatorCallMsP50, leaseOverheadMsP95, webhookAckMs } from './paced.ts';
import { proxyOverheadMsPerRequest } from './proxy-overhead.ts';
import { costCapOvershootPct } from './cost-cap.ts';
import { costVisibleStepsPct } from './cost-visible.ts';
import { recordChars200 } from './record-size.ts';
import { branchesAfter20Runs, claimRefsAfter20Runs } from './refs.ts';
import { decideEventsPerSecond } from './decide-throughput.ts';
import type { Figure } from './figure.ts';
import { limitWorkKeptPct } from './limit-resume.ts';
import { maintainerRunsRefusedAfterStrangerFlood, strangerWritesPer30Comments } from './strangers.ts';
import { appRssMbHostileArtifact } from './hostile-artifact.ts';
import { stateCompactChars200, stateRoundtripMs200 } from './state-roundtrip.ts';
import { validate50ManifestsMs } from './validate.ts';
import { sandboxSetupMs } from './sandbox-setup.ts';
import { storiesPerInstallationHour, writesPerFixIssueStory } from './stories.ts';
import { writesPerReviewRun } from './review-run.ts';
import { retainedBytesPerFinishedRun } from './memory.ts';
import { faultedRunsNotNamingMissing, silentGreenRuns } from './silent-green.ts';
import { burst20FirstDispatchP95Writes, sustainedRunsPerInstallationHour, writesPerSimpleRun } from './write-budget.ts';

export const FIGURES: Figure[] = [decideEventsPerSecond, stateRoundtripMs200, stateCompactChars200, validate50ManifestsMs, recordChars200, requestsPerAgentStep, commentEditsPerAgentStep, claimRefsAfter20Runs, branchesAfter20Runs, strangerWritesPer30Comments, maintainerRunsRefusedAfterStrangerFlood, webhookToCallsP95Ms, appMsPerEventP95, webhookAckMs, deliveryWorkMsP95, leaseOverheadMsP95, emulatorCallMsP50, actionBundleBytes, actionColdStartMs, nodeBareMs, cliHelpMs, cliHelpVsNode, mcpInitializeMs, mcpInitializeVsNode, appRssMbHostileArtifact, proxyOverheadMsPerRequest, costCapOvershootPct, costVisibleStepsPct, sandboxSetupMs, writesPerFixIssueStory, storiesPerInstallationHour, writesPerReviewRun, burst20FirstDispatchP95Writes, writesPerSimpleRun, sustainedRunsPerInstallationHour, retainedBytesPerFinishedRun, limitWorkKeptPct, silentGreenRuns, faultedRunsNotNamingMissing];
