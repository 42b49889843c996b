// A workflow with no label and no command starts only from its events or schedule: `/baton
// <name>` does nothing for it. `baton validate` and `baton doctor` say so, with what starts
// it and how to run it on demand locally.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { doctorCommand } from '../../src/cli/commands/doctor.ts';
import { validateCommand } from '../../src/cli/commands/validate.ts';
import type { CliIO } from '../../src/cli/io.ts';

const repo = mkdtempSync(join(tmpdir(), 'baton-start-notes-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));
mkdirSync(join(repo, '.agents/workflows'), { recursive: true });
mkdirSync(join(repo, '.git'));
const write = (name: string, text: string): void => writeFileSync(join(repo, '.agents/workflows', name), text);
write('pr-bot.yml', 'name: pr-bot\non:\n  commands: []\n  pull_request: { types: [opened] }\n  schedule: [{ cron: "0 6 * * 1" }]\nsteps:\n  - id: a\n    run: "true"\n');
write('idle.yml', 'name: idle\non:\n  commands: []\nsteps:\n  - id: a\n    run: "true"\n');
write('plain.yml', 'name: plain\non:\n  pull_request: {}\nsteps:\n  - id: a\n    run: "true"\n');

function io(): CliIO & { out: (t: string) => void; text: () => string } {
  const lines: string[] = [];
  return { out: (t) => lines.push(t), err: (t) => lines.push(t), cwd: repo, text: () => lines.join('\n') };
}

const PR_BOT = '`pr-bot` has no label and no command: on GitHub it starts only from pull_request (opened), schedule "0 6 * * 1" (UTC), never from `/baton pr-bot`, a label or the MCP server; on demand, locally: `baton run pr-bot --local --input pr=<branch>`';
const IDLE = '`idle` has no label, no command and no event or schedule: nothing starts it on GitHub; on demand, locally: `baton run idle --local`';

describe('workflows no label or command starts', () => {
  it('baton validate notes them at their `on:` key, and not a workflow its name starts', () => {
    const out = io();
    expect(validateCommand([], out)).toBe(0);
    expect(out.text()).toContain(`.agents/workflows/pr-bot.yml:2:1: note: ${PR_BOT}`);
    expect(out.text()).toContain(`.agents/workflows/idle.yml:2:1: note: ${IDLE}`);
    expect(out.text()).not.toContain('`plain`');
    const json = io();
    validateCommand(['--json'], json);
    expect(JSON.parse(json.text()).notes.map((n: { message: string }) => n.message).sort()).toEqual([PR_BOT, IDLE].sort());
  });

  it('baton doctor lists them with what starts them', async () => {
    const out = io();
    await doctorCommand([], out, { PATH: '' });
    expect(out.text()).toContain(`\nworkflows that no label or command starts\n`);
    expect(out.text()).toContain(`  ${PR_BOT} (.agents/workflows/pr-bot.yml:2)`);
    const json = io();
    await doctorCommand(['--json'], json, { PATH: '' });
    expect(JSON.parse(json.text()).starts).toHaveLength(2);
  });
});
