// Any program: `run:` is its argv, the prompt arrives on stdin, and it may write its result
// as JSON to the file named by BATON_OUTPUT (else the last JSON block it prints is used).
import type { AgentBackend } from './types.ts';

export const command: AgentBackend = {
  name: 'command',
  binary: null,
  version: null,
  install: null,
  credentials: [],
  loginFiles: [],

  invocation(spec, prompt) {
    if (!spec.run?.length) throw new Error('a `command` agent needs `run:`, the argv of the program to start');
    return { argv: [...spec.run, ...(spec.args ?? [])], stdin: prompt, env: {} };
  },

  parse(stdout) {
    return { finalMessage: stdout, usage: {} };
  },
};
