/* global process, console */
// Stand-in coder: edits the files a task names. It gets the slug wrong the first time
// (runs of spaces become runs of dashes): the reviewer asks for a test of that, and CI,
// running the new test, sends the coder back to fix it.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { readPrompt, report } from './lib.mjs';

const prompt = readPrompt();
const slug = (body) => `// The part of a widget's URL after /widgets/.\nexport function slugify(name) {\n  return ${body};\n}\n`;
const addTest = (title, input, expected) =>
  appendFileSync('test/slug.test.js', `\ntest('${title}', () => {\n  assert.equal(slugify(${JSON.stringify(input)}), ${JSON.stringify(expected)});\n});\n`);

let summary;
if (prompt.includes('Fix round for step `ci`')) {
  writeFileSync('src/slug.js', slug("name.trim().toLowerCase().split(/\\s+/).join('-')"));
  summary = 'slugify() trims the name and turns each run of spaces into one dash.';
} else if (prompt.includes('Fix round for step `review`')) {
  addTest('drops runs of spaces and spaces at the ends', '  Blue   Widget ', 'blue-widget');
  summary = 'Added the test the reviewer asked for.';
} else if (prompt.includes('src/slug.js')) {
  writeFileSync('src/slug.js', slug("name.toLowerCase().replace(/ /g, '-')"));
  summary = 'slugify() joins words with dashes.';
} else if (prompt.includes('test/slug.test.js')) {
  addTest('joins words with a dash', 'Blue Widget', 'blue-widget');
  summary = 'Added a test for a name with a space.';
} else if (prompt.includes('CHANGELOG.md')) {
  const issue = /#(\d+)/.exec(prompt.slice(prompt.indexOf('CHANGELOG.md')))?.[1] ?? '?';
  writeFileSync('CHANGELOG.md', readFileSync('CHANGELOG.md', 'utf8') + `\n- Widget URLs join words with dashes (#${issue}).\n`);
  summary = 'Noted the fix in CHANGELOG.md.';
} else {
  console.error('The stand-in coder does not know this task.');
  process.exit(1);
}
console.log(summary);
report({ summary });
