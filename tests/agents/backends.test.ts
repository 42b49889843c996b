// Each backend's invocation and parser on their own: argv as the real CLI names its flags,
// and the figures read from what the real CLI prints.
import { describe, expect, it } from 'vitest';
import { BACKEND_IMPLS, backendFor } from '../../src/agents/backends/index.ts';
import { MAX_PROMPT_ARG } from '../../src/agents/backends/types.ts';
import type { AgentSpec } from '../../src/manifest/types.ts';

const spec = (over: Partial<AgentSpec> = {}): AgentSpec => ({ uses: 'claude-code', env: {}, ...over });
const opts = { tmpDir: '/tmp/w', writes: true };

describe('invocations', () => {
  it('builds each CLI\'s non-interactive command line', () => {
    const full = spec({ model: 'M', maxTurns: 7, args: ['--extra'] });
    const table = Object.fromEntries(Object.values(BACKEND_IMPLS).filter((b) => b.name !== 'command').map((b) => [b.name, b.invocation(full, 'PROMPT', opts).argv.join(' ')]));
    expect(table).toEqual({
      'claude-code': 'claude -p --output-format json --permission-mode bypassPermissions --model M --max-turns 7 --extra',
      codex: 'codex exec --json --sandbox workspace-write --model M --extra -',
      aider:
        'aider --message-file /tmp/w/aider-message.md --yes-always --no-auto-commits --no-dirty-commits --no-check-update --no-pretty --no-stream --no-gitignore --analytics-disable --chat-history-file /tmp/w/aider-chat.md --input-history-file /tmp/w/aider-input --config /tmp/w/aider-config.yml --env-file /tmp/w/aider-config.env --model-settings-file /tmp/w/aider-config.model.settings.yml --model-metadata-file /tmp/w/aider-config.model.metadata.json --no-auto-lint --no-auto-test --model M --extra',
      opencode: 'opencode run --format json --model M --extra',
      gemini: 'gemini --output-format json --approval-mode yolo --model M --include-directories /tmp/w --extra --prompt Do the task given above.',
      copilot: 'copilot -s --no-ask-user --allow-all-tools --model=M --extra -p PROMPT',
    });
  });

  it('keeps read-only steps read-only where the CLI can', () => {
    const ro = { ...opts, writes: false };
    expect(backendFor('claude-code').invocation(spec(), 'p', ro).argv).toEqual(expect.arrayContaining(['--disallowedTools', 'Edit', 'Write', 'NotebookEdit', 'Bash']));
    expect(backendFor('codex').invocation(spec(), 'p', ro).argv.join(' ')).toContain('--sandbox read-only');
    expect(backendFor('gemini').invocation(spec(), 'p', ro).argv.join(' ')).toContain('--approval-mode default');
    expect(backendFor('copilot').invocation(spec(), 'p', ro).argv).toContain('--deny-tool=write');
    expect(backendFor('opencode').invocation(spec(), 'p', ro).argv.join(' ')).toContain('--agent plan');
    expect(backendFor('opencode').invocation(spec(), 'p', opts).argv).not.toContain('--agent');
  });

  it('puts the prompt on stdin, in a file, or (when too long for argv) in a file the argument names', () => {
    expect(backendFor('claude-code').invocation(spec(), 'P', opts).stdin).toBe('P');
    expect(backendFor('codex').invocation(spec(), 'P', opts).stdin).toBe('P');
    // aider also gets empty configuration of baton's own, so none in the checkout steers it (agent-config-paths.ts).
    expect(backendFor('aider').invocation(spec(), 'P', opts).files).toEqual({
      '/tmp/w/aider-message.md': 'P',
      '/tmp/w/aider-config.yml': '',
      '/tmp/w/aider-config.env': '',
      '/tmp/w/aider-config.model.settings.yml': '[]\n',
      '/tmp/w/aider-config.model.metadata.json': '{}\n',
    });
    // opencode re-quotes message arguments with spaces; gemini puts stdin before --prompt.
    expect(backendFor('opencode').invocation(spec(), 'P', opts).stdin).toBe('P');
    expect(backendFor('gemini').invocation(spec(), 'P', opts).stdin).toBe('P');
    const long = 'x'.repeat(MAX_PROMPT_ARG + 1);
    for (const name of ['copilot'] as const) {
      const inv = backendFor(name).invocation(spec(), long, opts);
      expect(inv.files).toEqual({ '/tmp/w/prompt.md': long });
      expect(inv.argv[inv.argv.length - 1]).toContain('/tmp/w/prompt.md');
    }
  });

  it('runs a command agent\'s argv and refuses one without `run:`', () => {
    expect(backendFor('command').invocation(spec({ uses: 'command', run: ['./agent.sh', '--fast'] }), 'P', opts)).toEqual({ argv: ['./agent.sh', '--fast'], stdin: 'P', env: {} });
    expect(() => backendFor('command').invocation(spec({ uses: 'command' }), 'P', opts)).toThrowError('needs `run:`');
  });
});

describe('parsers', () => {
  it('claude-code: result, cost and tokens (cache tokens count as input), and is_error', () => {
    const out = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'done', total_cost_usd: 0.25, usage: { input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 7 } });
    expect(backendFor('claude-code').parse(out, '')).toEqual({ finalMessage: 'done', usage: { costUsd: 0.25, inputTokens: 115, outputTokens: 7 }, error: undefined });
    const err = JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, errors: ['Reached maximum number of turns (3)'] });
    expect(backendFor('claude-code').parse(err, '').error).toBe('claude reported an error (error_max_turns): Reached maximum number of turns (3)');
    // Verbose on: one JSON array of messages, the result last.
    const array = JSON.stringify([{ type: 'system', subtype: 'init' }, { type: 'assistant', message: {} }, { ...JSON.parse(out), structured_output: { a: 1 } }]);
    expect(backendFor('claude-code').parse(array, '')).toMatchObject({ finalMessage: 'done', usage: { costUsd: 0.25 }, structured: { a: 1 } });
    const stream = [JSON.stringify({ type: 'system', subtype: 'init' }), out].join('\n');
    expect(backendFor('claude-code').parse(stream, '').finalMessage).toBe('done');
  });

  it('codex: the last agent message, summed turn usage, and failures', () => {
    const lines = [
      { type: 'thread.started', thread_id: 't' },
      { type: 'item.completed', item: { type: 'agent_message', text: 'first' } },
      { type: 'turn.completed', usage: { input_tokens: 100, cached_input_tokens: 50, output_tokens: 10 } },
      { type: 'item.completed', item: { type: 'agent_message', text: 'last' } },
      { type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 2 } },
    ].map((l) => JSON.stringify(l));
    // No model named: priced at the table's highest rates (101-50 × 1.75 + 50 × 0.175 + 12 × 14 per 1M).
    expect(backendFor('codex').parse(['Reading prompt from stdin…', ...lines].join('\n'), '')).toEqual({ finalMessage: 'last', usage: { inputTokens: 101, outputTokens: 12, costUsd: 0.000266, costEstimated: true }, error: undefined });
    // An error event is fatal only when no turn completes after it ("Reconnecting... 1/5" is retried).
    const retry = JSON.stringify({ type: 'error', message: 'Reconnecting... 1/5 (stream disconnected)' });
    expect(backendFor('codex').parse([retry, ...lines].join('\n'), '').error).toBeUndefined();
    expect(backendFor('codex').parse([...lines, retry].join('\n'), '').error).toBe('codex error: Reconnecting... 1/5 (stream disconnected)');
    expect(backendFor('codex').parse(JSON.stringify({ type: 'turn.failed', error: { message: 'quota' } }), '').error).toBe('codex turn failed: quota');
  });

  it('aider: tokens and session cost from its report lines', () => {
    const out = 'Applied edit to a.ts\nDone.\nTokens: 2.1k sent, 1.2k cache write, 135 received. Cost: $0.01 message, $0.01 session.\nTokens: 3k sent, 40 received. Cost: $0.02 message, $0.03 session.\n';
    const p = backendFor('aider').parse(out, '');
    expect(p.usage).toEqual({ inputTokens: 5100, outputTokens: 175, costUsd: 0.03 });
    expect(p.finalMessage).not.toContain('Tokens:');
    expect(p.error).toBeUndefined();
    // Both cache figures in one report (base_coder.py: cache write, then cache hit).
    const both = 'Tokens: 12k sent, 1.2k cache write, 8k cache hit, 500 received. Cost: $0.01 message, $0.05 session.\n';
    expect(backendFor('aider').parse(both, '').usage).toEqual({ inputTokens: 12000, outputTokens: 500, costUsd: 0.05 });
  });

  it('aider: a provider failure it prints and exits 0 on fails the attempt, unless an answer followed its retry', () => {
    const auth = 'Aider v0.86.2\n\nlitellm.AuthenticationError: AuthenticationError: AnthropicException - invalid x-api-key\nThe API provider is not able to authenticate you. Check your API key.\n';
    expect(backendFor('aider').parse(auth, '').error).toMatch(/refused the request: litellm\.AuthenticationError.*not able to authenticate you/);
    const retried = 'litellm.InternalServerError: overloaded\nRetrying in 0.2 seconds...\nDone.\nTokens: 1k sent, 10 received. Cost: $0.01 message, $0.01 session.\n';
    expect(backendFor('aider').parse(retried, '').error).toBeUndefined();
  });

  it('opencode: text of the last step, cost and tokens of every step', () => {
    const ev = [
      { type: 'step_start', part: {} },
      { type: 'text', part: { text: 'thinking' } },
      { type: 'step_finish', part: { cost: 0.1, tokens: { input: 10, output: 1 } } },
      { type: 'step_start', part: {} },
      { type: 'text', part: { text: 'final ' } },
      { type: 'text', part: { text: 'answer' } },
      { type: 'step_finish', part: { cost: 0.2, tokens: { input: 20, output: 2 } } },
    ].map((l) => JSON.stringify(l));
    expect(backendFor('opencode').parse(ev.join('\n'), '')).toEqual({ finalMessage: 'final answer', usage: { costUsd: 0.3, inputTokens: 30, outputTokens: 3 }, error: undefined });
  });

  it('gemini: response and per-model tokens', () => {
    const out = JSON.stringify({ response: 'r', stats: { models: { a: { tokens: { prompt: 5, candidates: 1 } }, b: { tokens: { prompt: 7, candidates: 2 } } } } });
    expect(backendFor('gemini').parse(out, '')).toEqual({ finalMessage: 'r', usage: { inputTokens: 12, outputTokens: 3 }, error: undefined });
    expect(backendFor('gemini').parse(JSON.stringify({ response: '', error: { message: 'quota exceeded' } }), '').error).toBe('gemini error: quota exceeded');
    // No auth: nothing on stdout, the error object on stderr (exit 41).
    const noAuth = JSON.stringify({ session_id: 's', error: { type: 'Error', message: 'Please set an Auth method', code: 41 } }, null, 2);
    expect(backendFor('gemini').parse('', noAuth).error).toBe('gemini error 41: Please set an Auth method');
  });

  it('copilot and command: stdout is the message', () => {
    expect(backendFor('copilot').parse('hello\n', '')).toEqual({ finalMessage: 'hello\n', usage: {} });
    expect(backendFor('command').parse('hi', 'warn')).toEqual({ finalMessage: 'hi', usage: {} });
  });
});
