// What one installation can carry under GitHub's write limits: the demo's story (an issue
// labelled → a question answered → parallel jobs → a review and a CI fix round → a draft PR),
// run as `npm run demo` runs it, and its writes counted from the emulator's request log.
// GitHub paces an installation's writes about one a second and documents a secondary limit of
// 80 content-generating requests a minute and 500 an hour; which requests count is not
// published, so every write is assumed to count (docs/performance.md, "Writes and stories").
import { runDemo, type DemoSummary } from '../../scripts/demo/main.ts';
import type { Figure } from './figure.ts';

/** GitHub's documented secondary limits on content-creating requests (docs: "Rate limits for the REST API"). */
export const CONTENT_WRITES_PER_MINUTE = 80;
export const CONTENT_WRITES_PER_HOUR = 500;
/** One write a second: the pacing GitHub asks of integrations ("Best practices for using the REST API"). */
export const WRITES_PER_SECOND = 1;

/** How many stories of `writes` each fit in an hour under all three limits. */
export function storiesPerHour(writes: number): number {
  const perHour = Math.min(CONTENT_WRITES_PER_HOUR, CONTENT_WRITES_PER_MINUTE * 60, WRITES_PER_SECOND * 3600);
  return Math.round((perHour / writes) * 10) / 10;
}

let cached: Promise<DemoSummary> | undefined;
const story = (): Promise<DemoSummary> =>
  (cached ??= runDemo({ out: () => {}, timeoutSeconds: 150 }).then((s) => {
    if (!s.ok) throw new Error(`the demo's story did not end in a pull request (status ${s.status})`);
    return s;
  }));

export const writesPerFixIssueStory: Figure = {
  name: 'writes_per_fix_issue_story',
  description: "the App's writes (every request but GET/HEAD) for the demo's fix-issue story, label to draft PR, from the emulator's log",
  unit: 'writes',
  async measure() {
    return (await story()).appWrites;
  },
};

export const storiesPerInstallationHour: Figure = {
  name: 'stories_per_installation_hour',
  description: 'demo stories one installation can carry an hour if every write counts against GitHub\'s 500 content-creating requests an hour',
  unit: 'stories',
  async measure() {
    return storiesPerHour((await story()).appWrites);
  },
};
