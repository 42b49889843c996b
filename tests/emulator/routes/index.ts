/** Every route group the emulator serves (Actions registers itself as a plugin). */
import type { Emulator } from '../emulator.ts';
import { registerAppDeliveryRoutes } from './app-deliveries.ts';
import { registerAppManifestRoutes } from './app-manifests.ts';
import { registerAppRoutes } from './app.ts';
import { registerCheckRoutes } from './checks.ts';
import { registerContentRoutes } from './contents.ts';
import { registerGitRoutes } from './git.ts';
import { registerIssueRoutes } from './issues.ts';
import { registerPullMergeRoutes } from './pull-merge.ts';
import { registerPullRoutes } from './pulls.ts';
import { registerReactionRoutes } from './reactions.ts';
import { registerRepoRoutes } from './repos.ts';

export function registerRoutes(emulator: Emulator): void {
  registerAppRoutes(emulator);
  registerAppManifestRoutes(emulator);
  registerAppDeliveryRoutes(emulator);
  registerRepoRoutes(emulator);
  registerIssueRoutes(emulator);
  registerReactionRoutes(emulator);
  registerCheckRoutes(emulator);
  registerGitRoutes(emulator);
  registerContentRoutes(emulator);
  registerPullRoutes(emulator);
  registerPullMergeRoutes(emulator);
}
