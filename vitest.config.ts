import { configDefaults, defineConfig } from 'vitest/config';

// Two projects, two commands (README "Set up"):
//   npm test               → `main`: everything but the contract tests; offline, nothing to install.
//   npm run test:contract  → `contract`: tests/agents/contract/ against the real agent CLIs, which
//                            its global setup installs first (npm registry, ~1.5 GB, once).
// `npx vitest run <file>` picks the project the file belongs to.
const CONTRACT = 'tests/agents/contract/**/*.test.ts';

export default defineConfig({
  test: {
    setupFiles: ['tests/setup/fast-check.ts', 'tests/setup/git-config.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: more workers than that only adds contention.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'main', include: ['tests/**/*.test.ts'], exclude: [...configDefaults.exclude, CONTRACT] },
      },
      {
        extends: true,
        test: { name: 'contract', include: [CONTRACT], globalSetup: ['tests/setup/agent-clis.ts'] },
      },
    ],
  },
});
