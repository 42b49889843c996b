/* global console */
// Stand-in planner: splits the slug fix into three tasks that touch different files.
import { readPrompt, report } from './lib.mjs';

const prompt = readPrompt();
const issue = /issue #(\d+)/.exec(prompt)?.[1] ?? '?';
console.log('Read src/slug.js and test/slug.test.js; three independent tasks.');
report({
  tasks: [
    'src/slug.js: join the words of a name with dashes',
    'test/slug.test.js: test a name with a space',
    `CHANGELOG.md: note the fix of #${issue}`,
  ],
});
