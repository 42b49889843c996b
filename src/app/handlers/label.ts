// `issues.labeled` / `pull_request.labeled`: a workflow's label starts it.
import { q } from '../../manifest/diagnostics.ts';
import { didYouMean } from '../../manifest/diagnostics.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { brokenFor, byLabel, defaultBranchHead, loadManifests, validWorkflows } from '../../hosts/github/manifests.ts';
import { replyOnce, reportBrokenManifest } from '../replies.ts';
import { acknowledge, standingOf } from '../../hosts/github/stranger-door.ts';
import type { Log, RunService } from '../runs.ts';
import { startRun, type Thread } from './start.ts';
import { labelGivesWay, runGivenWayTo } from '../opened-with-label.ts';
import { readThread } from '../../hosts/github/thread.ts';

export interface Labeled {
  label: string;
  thread: Thread;
  sender: string;
  senderIsBot: boolean;
  key: string;
}

export async function onLabeled(runs: RunService, gh: RepoContext, ev: Labeled, log: Log): Promise<void> {
  // Only labels that could be baton's cost a look at the manifests.
  const sha = await defaultBranchHead(gh);
  const set = await loadManifests(gh, sha);
  const found = byLabel(set, ev.label);
  if (!found) {
    if (!ev.label.toLowerCase().startsWith('baton:')) return;
    if (ev.senderIsBot) return;
    const broken = brokenFor(set, ev.label);
    if (broken) return reportBrokenManifest(gh, ev.thread.number, broken, sha, ev.key);
    const labels = validWorkflows(set).flatMap((w) => w.on.labels);
    return replyOnce(gh, ev.thread.number, ev.key, `No workflow in \`.agents/workflows\` starts on the label ${q(ev.label)}${didYouMean(ev.label, labels)}\n\nLabels that start a workflow: ${labels.map(q).join(', ') || '(none)'}.`);
  }
  // A workflow that starts on the thread's `opened` too gives way to the run that started
  // (opened-with-label.ts): looked at here first, so that the label an author without the
  // workflow's role opened the thread with (an issue template's) costs no refusal and no budget
  // note; and again where the run would start, where two deliveries cannot both pass.
  const giveWay = labelGivesWay(found.workflow, ev.thread.isPull);
  if (giveWay) {
    const first = runGivenWayTo((await readThread(gh, ev.thread.number)).records.map((r) => r.state), found.workflow.name, giveWay);
    if (first) {
      log.info(`\`${found.workflow.name}\` not started on #${ev.thread.number} by ${q(ev.label)}: its run ${first.runId} is still going there (it starts on the thread's opening too, so a label it was opened with starts it once)`);
      return;
    }
  }
  await startRun(runs, gh, { workflow: found.workflow, hash: found.hash, manifestCommit: sha, thread: ev.thread, actor: ev.sender, actorIsBot: ev.senderIsBot, inputs: {}, key: ev.key, ...(giveWay && { giveWay }) }, log);
  // The 👀 follows the start, not precedes it: under the write budget a run's writes up to its
  // first dispatch are served first (write-lanes.ts), and this one would stand in front of it
  // telling nothing the worker starting does not; after the dispatch it is bookkeeping, served in
  // turn. A start that fails before it is redone (a deferred event, a redelivery) and reacts then.
  // Labelling takes triage on GitHub: the labeller is no stranger to the 👀 (startRun decided the start).
  await acknowledge(gh, standingOf(ev.sender, 'triage', ['triage']), { issue: ev.thread.number });
}
