// Validating 50 manifests the size of the library's fix-issue (110 lines, every step
// kind, expressions, an outputs schema), as `baton validate` does for a busy repository.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIBRARY_DIR } from '../../src/manifest/load.ts';
import { findWorkflowFiles, validateFiles } from '../../src/manifest/validate.ts';
import { medianMs } from '../measure.ts';
import type { Figure } from './figure.ts';

export const validate50ManifestsMs: Figure = {
  name: 'validate_50_manifests_ms',
  description: 'validate 50 fix-issue-sized manifests together (in process, schema compiled)',
  unit: 'ms',
  target: { op: '<', value: 1000 },
  measure() {
    const dir = mkdtempSync(join(tmpdir(), 'baton-bench-validate-'));
    try {
      const text = readFileSync(join(LIBRARY_DIR, 'fix-issue.yml'), 'utf8');
      for (let i = 0; i < 50; i++) {
        // Distinct names, labels and commands: 50 workflows that may live in one repository.
        const own = text
          .replace(/^name: fix-issue$/m, `name: fix-issue-${i}`)
          .replace(/baton:fix-issue/g, `baton:fix-issue-${i}`)
          .replace(/commands: \[[^\]]*\]/, `commands: [fix-${i}]`);
        writeFileSync(join(dir, `w${i}.yml`), own);
      }
      const { files } = findWorkflowFiles([dir]);
      let valid = true;
      const ms = medianMs(() => (valid = validateFiles(files).valid), { warmup: 2, runs: 7 });
      if (!valid) throw new Error('the generated manifests should be valid');
      return ms;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
