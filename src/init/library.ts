// The workflows `baton init` offers: the files of the bundled workflows-library/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIBRARY_DIR, loadWorkflowText } from '../manifest/load.ts';
import type { Backend } from '../manifest/types.ts';
import { schemaUrl } from '../names.ts';

export interface LibraryWorkflow {
  name: string;
  description: string;
  text: string;
  backends: Backend[];
}

export function libraryWorkflows(dir: string = LIBRARY_DIR): LibraryWorkflow[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => {
      const text = readFileSync(join(dir, f), 'utf8');
      const loaded = loadWorkflowText(`workflows-library/${f}`, text).loaded;
      const wf = loaded?.workflow;
      return {
        name: f.replace(/\.ya?ml$/, ''),
        description: wf?.description ?? '',
        text,
        backends: wf ? [...new Set(Object.values(wf.agents).map((a) => a.uses))] : [],
      };
    });
}

/**
 * The file as it goes into `.agents/workflows/`: the editor's schema hint pointed at the
 * schema of the baton version the Action reference names (the library's is relative).
 */
export function forRepository(text: string, actionRef: string): string {
  const url = schemaUrl(actionRef);
  return text.replace(/^# yaml-language-server: \$schema=\S+$/m, (line) => (url ? `# yaml-language-server: $schema=${url}` : line));
}
