// Release step 1: the pushed tag names the version in package.json, else nothing is published.
// `tsx scripts/release/check-tag.ts v1.2.0` prints, as step outputs (`>> "$GITHUB_OUTPUT"`),
// the major tag a stable release moves and the npm dist-tag (`next` for a pre-release, so
// `npx -y @baton-dev/baton` never picks one up).
import { fileURLToPath } from 'node:url';
import { checkTag } from './version-tag.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
try {
  const t = checkTag(process.argv[2] ?? '', root);
  console.log(`major=${t.major}`);
  console.log(`npm-tag=${t.prerelease ? 'next' : 'latest'}`);
} catch (e) {
  console.error(`release refused: ${(e as Error).message}`);
  process.exit(1);
}
