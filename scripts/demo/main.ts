/**
 * `npm run demo`: one baton run from label to pull request, on this machine, with no
 * account, network or API key.
 *
 *   npm run demo [-- --markdown FILE] [--log-level info] [--real-pacing] [--timeout SECONDS]
 *
 * Starts the GitHub emulator (tests/emulator) with its Actions runner, where
 * `uses: baton-dev/baton@v1` is this checkout's bundled Action; starts the baton App as
 * `npm start` does, pointed at the emulator; commits the worker workflow and a fix-issue
 * workflow to acme/widgets; opens an issue and labels it; then plays the maintainer (who
 * answers baton's question) and CI (which runs the repository's tests on every push to the
 * run branch), and prints what happens until the run ends. The agents are the stand-ins
 * in scripts/demo/repo/.agents/demo/ (the `command` backend). `--markdown FILE` writes the
 * final status comment, as GitHub would show it, to FILE.
 */
import { rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { RECORD_MARKER } from '../../src/record/render.ts';
import type { Delivery } from '../../tests/emulator/webhooks.ts';
import { startStack, type Stack, type StackOptions } from './stack.ts';
import { Ci, CI_USER, MAINTAINER, OWNER, REPO, as, commitBaton, createWidgets, workDir } from './story.ts';
import { View, bold, dim, green, red, yellow } from './view.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPO_DIR = fileURLToPath(new URL('./repo', import.meta.url));
const o = { owner: OWNER, repo: REPO };

const ISSUE = {
  title: 'Widget URLs break on names with spaces',
  body: "`slugify('Blue Widget')` returns `blue widget`, which is not a valid URL path segment. It should be `blue-widget`.",
};
const ANSWER = 'Yes: drop the spaces at both ends and turn each run of spaces into one dash.';

export interface DemoOptions {
  markdown?: string;
  logLevel?: StackOptions['logLevel'];
  /** GitHub's real pacing of writes (time scale 1) instead of the demo's compressed one. */
  realPacing?: boolean;
  timeoutSeconds?: number;
  out?: (line: string) => void;
}

export interface DemoSummary {
  ok: boolean;
  runId: string;
  status: string;
  pr: { number: number; url: string; draft: boolean; files: number } | null;
  seconds: number;
  jobs: number;
  appRequests: number;
  /** Requests that create or change something (what GitHub's content-creation limit counts). */
  appWrites: number;
  commentEdits: number;
  /** The writes by route (`METHOD /path/{template}`), to see which carry nothing new. */
  writesByRoute: Record<string, number>;
  webhooks: number;
}

type Payload = Record<string, any>;

export async function runDemo(opts: DemoOptions = {}): Promise<DemoSummary> {
  const out = opts.out ?? ((l: string) => console.log(l));
  // A closed pipe (`npm run demo | head`) must not end the demo before it cleans up.
  const ignorePipe = (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  };
  process.stdout.on('error', ignorePipe);
  const view = new View(out);
  const work = await workDir();
  let stack: Stack | undefined;
  const onSignal = () => {
    void (async () => {
      out('interrupted: stopping the jobs, the App and the emulator, removing temp files…');
      await stack?.close().catch(() => {});
      await rm(work, { recursive: true, force: true });
      process.exit(130);
    })();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    stack = await startStack({ root: ROOT, ...(opts.logLevel ? { logLevel: opts.logLevel } : {}), ...(opts.realPacing ? { timeScale: 1 } : {}) });
    const { emu, runner } = stack;
    out(bold('baton demo') + dim(` — GitHub emulator at ${emu.url}, baton App at ${stack.appUrl} (Probot, signed webhooks)`));
    view.line(`emulator with an Actions runner: ${dim('uses: baton-dev/baton@v1')} runs this checkout's dist/action.js`);
    view.line(`App up: GET /ping → PONG; webhooks go to ${stack.appUrl}/api/github/webhooks`);

    const batonFiles = await createWidgets(emu, REPO_DIR);
    const sha = await commitBaton(emu, batonFiles, work);
    view.line(`@${MAINTAINER} pushed ${sha.slice(0, 7)} to ${OWNER}/${REPO}: ${Object.keys(batonFiles).filter((p) => p.endsWith('.yml')).join(', ')} ${dim(`(+ ${Object.keys(batonFiles).filter((p) => !p.endsWith('.yml')).length} stand-in agent scripts)`)}`);

    // Everything the emulator sends to the App passes here first.
    const alice = as(emu, MAINTAINER);
    let runId = '';
    const answered = new Set<string>();
    const background = new Set<Promise<unknown>>();
    const track = (p: Promise<unknown>) => {
      background.add(p);
      void p.finally(() => background.delete(p));
    };
    const started = new Map<number, number>();
    let finish: (status: string) => void = () => {};
    const finished = new Promise<string>((resolve) => (finish = resolve));
    const ci = new Ci(emu, work, (r) => view.line(`${r.ok ? green('CI passed') : red('CI failed')} on ${r.sha.slice(0, 7)}: ${r.description}`));

    emu.webhooks.onEmit((d: Delivery) => {
      const p = d.payload as Payload;
      const key = `${d.event}.${d.action ?? ''}`;
      if (key === 'issue_comment.created' || key === 'issue_comment.edited') {
        const c = p.comment;
        const body: string = c.body ?? '';
        const login: string = c.user?.login ?? '';
        if (body.includes(RECORD_MARKER)) {
          view.record(body, c.html_url, d.action === 'created');
          const m = /run (\S+) — (\w+)/.exec(view.finalChecklist()[0] ?? '');
          if (m) runId = m[1]!;
          if (m && ['succeeded', 'failed', 'cancelled', 'stopped'].includes(m[2]!)) finish(m[2]!);
        } else if (d.action === 'created' && login.endsWith('[bot]')) {
          const q = /<!-- baton:questions (\S+?)(@pr)? -->/.exec(body);
          const first = body.replace(/<!--[\s\S]*?-->/g, '').trim().split('\n').filter(Boolean);
          view.line(`${yellow('@' + login)} on #${p.issue.number}: ${first[0]}`);
          for (const l of first.slice(1, -1)) view.detail(l);
          if (q && !answered.has(q[1]!)) {
            answered.add(q[1]!);
            // A person takes a moment to read the question.
            track(
              new Promise((r) => setTimeout(r, 300)).then(async () => {
                await alice.rest.issues.createComment({ ...o, issue_number: p.issue.number, body: `/baton answer ${ANSWER}` });
                view.line(`@${MAINTAINER} answers on #${p.issue.number}: ${ANSWER}`);
              }),
            );
          }
        }
      } else if (key === 'workflow_run.in_progress') {
        started.set(p.workflow_run.id, Date.now());
        view.line(`▶ worker job ${bold(p.workflow_run.display_title)} started ${dim(p.workflow_run.html_url)}`);
      } else if (key === 'workflow_run.completed') {
        const r = p.workflow_run;
        const secs = ((Date.now() - (started.get(r.id) ?? Date.now())) / 1000).toFixed(1);
        const text = `■ worker job ${r.display_title} ${r.conclusion} in ${secs}s`;
        view.line(r.conclusion === 'success' ? text : red(text));
      } else if (key === 'pull_request.opened') {
        const pr = p.pull_request;
        view.line(green(`pull request #${pr.number} opened${pr.draft ? ' (draft)' : ''}: ${pr.title}`) + dim(` ${pr.html_url}`));
      } else if (key === 'pull_request_review.submitted') {
        const r = p.review;
        const text = String(r.body ?? '').replace(/<!--[\s\S]*?-->/g, '').trim().split('\n').filter(Boolean);
        view.line(`review on #${p.pull_request.number} by @${r.user?.login}: ${text[0] ?? r.state}`);
        for (const l of text.slice(1, 4)) view.detail(dim(l));
      } else if (key === 'push.') {
        const ref: string = p.ref;
        if (/^refs\/heads\/baton\/[^/]+$/.test(ref) && !/^0+$/.test(p.after)) {
          view.line(`push to ${ref.slice('refs/heads/'.length)} → ${p.after.slice(0, 7)} ${dim(`(CI by @${CI_USER} starts)`)}`);
          ci.test(p.after);
        }
      }
    });

    const issue = (await alice.rest.issues.create({ ...o, ...ISSUE })).data;
    view.line(`@${MAINTAINER} opened issue #${issue.number}: ${issue.title}`);
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:fix-issue'] });
    view.line(`@${MAINTAINER} added the label ${bold('baton:fix-issue')} to #${issue.number}`);

    const timeout = (opts.timeoutSeconds ?? 110) * 1000;
    let timer: NodeJS.Timeout | undefined;
    const status = await Promise.race([finished, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timed out'), timeout)))]);
    clearTimeout(timer);

    // Let the last deliveries, jobs and CI results land before reading the outcome.
    for (let i = 0; i < 50; i++) {
      while (background.size) await Promise.allSettled([...background]);
      await ci.idle();
      await emu.webhooks.idle();
      await stack.runs()?.idle();
      await runner.idle();
      if (!background.size && ![...runner.store.runs.values()].some((r) => r.status !== 'completed')) break;
      await new Promise((r) => setTimeout(r, 20));
    }

    const pulls = (await alice.rest.pulls.list({ ...o, state: 'all' })).data;
    const pr = pulls.find((p) => p.head.ref === `baton/${runId}`);
    const files = pr ? (await alice.rest.pulls.get({ ...o, pull_number: pr.number })).data.changed_files : 0;
    const record = (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data.find((c) => c.body?.includes(RECORD_MARKER));
    if (opts.markdown && record?.body) await writeFile(opts.markdown, record.body);
    const appSide = emu.requestLog.filter((r) => r.identity.startsWith('installation:') || r.identity === 'app');
    const summary: DemoSummary = {
      ok: status === 'succeeded' && pr !== undefined,
      runId,
      status,
      pr: pr ? { number: pr.number, url: pr.html_url, draft: Boolean(pr.draft), files } : null,
      seconds: view.elapsed(),
      jobs: runner.store.runs.size,
      appRequests: appSide.length,
      appWrites: appSide.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length,
      commentEdits: appSide.filter((r) => r.route === 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}').length,
      writesByRoute: appSide.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').reduce<Record<string, number>>((m, r) => ((m[r.route] = (m[r.route] ?? 0) + 1), m), {}),
      webhooks: emu.webhooks.deliveries.length,
    };

    out('');
    out(bold('The status comment now reads:'));
    for (const l of view.finalChecklist()) out(`  ${l}`);
    out('');
    out(bold(summary.ok ? green('Summary') : red('Summary')));
    out(`  run        ${runId || '(none)'} ${summary.ok ? green(status) : red(status)} in ${summary.seconds.toFixed(1)}s`);
    out(`  PR         ${pr ? `#${pr.number} ${pr.draft ? '(draft) ' : ''}${pr.title} — ${files} files — ${pr.html_url}` : red('none')}`);
    out(`  steps      ${view.finalChecklist().length - 1}, in ${summary.jobs} worker jobs (each ran the bundled Action in a fresh clone)`);
    out(`  CI         ${ci.results.map((r) => (r.ok ? 'pass' : 'fail')).join(', ') || 'not run'}`);
    out(`  requests   ${summary.appRequests} GitHub API requests by the App (${summary.appWrites} writes, ${summary.commentEdits} of them status comment edits), ${summary.webhooks} webhooks delivered`);
    if (runner.errors.length) out(red(`  runner     ${runner.errors.join('; ')}`));
    if (emu.violations.length) out(red(`  emulator   ${emu.violations.length} responses broke GitHub's schemas: ${emu.violations[0]}`));
    if (!summary.ok) {
      for (const r of [...runner.store.runs.values()].filter((x) => x.conclusion !== 'success')) {
        out(red(`--- worker job ${r.displayTitle}: ${r.conclusion}`));
        out(runner.logs(r.id));
      }
    }
    return summary;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.stdout.off('error', ignorePipe);
    await stack?.close().catch(() => {});
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({
    options: {
      markdown: { type: 'string' },
      'log-level': { type: 'string' },
      'real-pacing': { type: 'boolean', default: false },
      timeout: { type: 'string' },
    },
  });
  const summary = await runDemo({
    ...(values.markdown ? { markdown: values.markdown } : {}),
    ...(values['log-level'] ? { logLevel: values['log-level'] as StackOptions['logLevel'] } : {}),
    realPacing: values['real-pacing'],
    ...(values.timeout ? { timeoutSeconds: Number(values.timeout) } : {}),
  });
  process.exit(summary.ok ? 0 : 1);
}
