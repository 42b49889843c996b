// Installing the App, as GitHub announces it: `installation.created` listing the
// repositories it may reach when an account installs it, `installation_repositories.added`
// when repositories are added to an installation later (docs "Webhook events and
// payloads": installation, installation_repositories). Both carry the repositories in the
// short form (id, node_id, name, full_name, private), the installation, and the requester.
import type { Emulator } from './emulator.ts';
import type { Delivery } from './webhooks.ts';

function shortRepo(emu: Emulator, owner: string, name: string) {
  const full = emu.shapes.repository(emu.repo(owner, name));
  return { id: full.id, node_id: full.node_id, name: full.name, full_name: full.full_name, private: full.private };
}

/** The installation as webhooks carry it: the REST shape without `client_id` (webhook schema `installation`). */
function webhookInstallation(emu: Emulator, owner: string) {
  const { client_id: _clientId, ...installation } = emu.shapes.installation(emu.store.installation(owner).id);
  return installation;
}

/** `owner` installs the App on `repos` (its repositories): installation.created. */
export function installApp(emu: Emulator, owner: string, repos: string[], by = owner): Delivery {
  return emu.webhooks.emit(
    'installation',
    { action: 'created', installation: webhookInstallation(emu, owner), repositories: repos.map((r) => shortRepo(emu, owner, r)), requester: emu.shapes.user(by) },
    { sender: by },
  );
}

/** Repositories added to `owner`'s installation: installation_repositories.added. */
export function addToInstallation(emu: Emulator, owner: string, repos: string[], by = owner): Delivery {
  return emu.webhooks.emit(
    'installation_repositories',
    {
      action: 'added',
      installation: webhookInstallation(emu, owner),
      repository_selection: 'selected',
      repositories_added: repos.map((r) => shortRepo(emu, owner, r)),
      repositories_removed: [],
      requester: emu.shapes.user(by),
    },
    { sender: by },
  );
}
