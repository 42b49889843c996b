// Stand-in reviewer: the maintainer asked for runs of spaces to be dropped; the review
// asks for a test of that until there is one.
import { readFileSync } from 'node:fs';
import { readPrompt, report } from './lib.mjs';

readPrompt();
const tests = readFileSync('test/slug.test.js', 'utf8');
if (tests.includes('runs of spaces')) {
  report({ approved: true, summary: 'The tests cover what the maintainer asked for. Approved.', comments: [] });
} else {
  const line = tests.split('\n').findIndex((l) => l.includes('joins words with a dash')) + 1;
  report({
    approved: false,
    summary: 'The maintainer asked for runs of spaces and spaces at the ends to be dropped; no test covers that.',
    comments: [{ path: 'test/slug.test.js', line: Math.max(line, 1), body: "Add a case like `slugify('  Blue   Widget ')` → `blue-widget`." }],
  });
}
