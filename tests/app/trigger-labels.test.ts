// Trigger labels exist where the App works: created when it is installed on a repository
// and when it first reads a workflow naming a new one; each label looked at once, a label
// someone already made left as it is.
import { afterEach, describe, expect, it } from 'vitest';
import { addToInstallation, installApp } from '../emulator/installations.ts';
import { appRequests, startHarness, type Harness } from './harness.ts';

const workflow = (name: string, labels: string[]) => `name: ${name}
on: { labels: ${JSON.stringify(labels)}, commands: [${name}] }
steps:
  - id: greet
    run: echo hi > hi.txt
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function labels(x: Harness): Promise<Record<string, { color: string; description: string | null }>> {
  const repo = x.emu.repo('acme', 'widgets');
  return Object.fromEntries([...repo.labels.values()].map((l) => [l.name, { color: l.color, description: l.description }]));
}

/** The App's calls to the repository's label endpoints (not an issue's), as `GET /labels/<name> 404`. */
const labelCalls = (x: Harness) =>
  appRequests(x.emu)
    .filter((r) => /\{repo\}\/labels(\/\{name\})?$/.test(r.route))
    .map((r) => `${r.method} ${decodeURIComponent(r.path.replace(/^.*\/labels/, '/labels'))} ${r.status}`);

describe('app: trigger labels', () => {
  it('creates the labels of every workflow when installed, once each, and leaves existing ones alone', async () => {
    h = await startHarness({
      files: { '.agents/workflows/hello.yml': workflow('hello', ['baton:hello', 'Say Hello']), '.agents/workflows/fix.yml': workflow('fix', ['baton:fix']) },
    });
    // A person made one already, in their own colour.
    await h.as('acme').rest.issues.createLabel({ owner: 'acme', repo: 'widgets', name: 'baton:fix', color: '000000' });

    installApp(h.emu, 'acme', ['widgets']);
    await h.settle();
    expect(await labels(h)).toMatchObject({
      'baton:hello': { color: '5319e7', description: 'Starts the baton workflow hello on this issue or pull request' },
      'Say Hello': { color: '5319e7' },
      'baton:fix': { color: '000000', description: null },
    });
    expect(labelCalls(h).sort()).toEqual(['GET /labels/Say Hello 404', 'GET /labels/baton:fix 200', 'GET /labels/baton:hello 404', 'POST /labels 201', 'POST /labels 201']);

    // Added to the installation again: nothing more to do.
    addToInstallation(h.emu, 'acme', ['widgets']);
    await h.settle();
    expect(labelCalls(h)).toHaveLength(5);
    h.emu.assertNoViolations();
  }, 30_000);

  it('creates the label of a workflow it reads for the first time, and a run starts from it', async () => {
    h = await startHarness({ files: { '.agents/workflows/hello.yml': workflow('hello', ['baton:hello']) } });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Later', body: 'Please.' })).data.number;
    // Any event that makes the App read the manifests.
    await alice.rest.issues.createComment({ owner: 'acme', repo: 'widgets', issue_number: issue, body: '/baton help' });
    await h.settle();
    expect(labelCalls(h)).toEqual(['GET /labels/baton:hello 404', 'POST /labels 201']);

    // A new workflow on the default branch: read at the next event, its label made; the old one not looked at again.
    await h.emu.git('acme', 'widgets').commitFiles('main', { '.agents/workflows/later.yml': workflow('later', ['baton:later']) }, 'Add a workflow');
    await alice.rest.issues.createComment({ owner: 'acme', repo: 'widgets', issue_number: issue, body: '/baton help' });
    await h.settle();
    expect(labelCalls(h)).toEqual(['GET /labels/baton:hello 404', 'POST /labels 201', 'GET /labels/baton:later 404', 'POST /labels 201']);
    expect(await labels(h)).toMatchObject({ 'baton:hello': { color: '5319e7' }, 'baton:later': { color: '5319e7', description: 'Starts the baton workflow later on this issue or pull request' } });

    // People now pick it from the menu; it starts its workflow.
    await alice.rest.issues.addLabels({ owner: 'acme', repo: 'widgets', issue_number: issue, labels: ['baton:later'] });
    await h.settle();
    expect(await h.record(issue)).toContain(`run \`later-${issue}-1\` — succeeded`);
    h.emu.assertNoViolations();
  }, 30_000);
});
