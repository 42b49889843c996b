/**
 * The manifest flow's two ends (see app-registration.ts for GitHub's rules and sources): the
 * "Create GitHub App" form a browser posts the manifest to, and the REST exchange of the
 * temporary code for the App's credentials.
 */
import { manifestProblem, type Manifest } from '../app-registration.ts';
import type { Emulator } from '../emulator.ts';
import { notFound } from '../http/router.ts';
import { redirect, refusal } from '../http/web.ts';

/** The account a personal `/settings/apps/new` registers for: the emulator has no sign-in, so its default owner. */
const SIGNED_IN = 'acme';

export function registerAppManifestRoutes(emulator: Emulator): void {
  const { router, pages, registrations, shapes } = emulator;

  // The form: `/settings/apps/new` (the signed-in user's) or `/organizations/<org>/settings/apps/new`.
  // On GitHub a person then names the App and presses "Create GitHub App"; the emulator takes
  // the manifest as submitted. A manifest GitHub cannot register is refused with what is wrong.
  pages.add('POST', /^(?:\/organizations\/[^/]+)?\/settings\/apps\/new$/, ({ path, form }) => {
    const owner = /^\/organizations\/([^/]+)\//.exec(path)?.[1] ?? SIGNED_IN;
    const text = form.get('manifest');
    if (text === null) return refusal(422, 'Invalid GitHub App configuration: the form has no manifest field');
    let manifest: unknown;
    try {
      manifest = JSON.parse(text);
    } catch {
      return refusal(422, 'Invalid GitHub App configuration: the manifest is not JSON');
    }
    const problem = manifestProblem(manifest);
    if (problem !== null) return refusal(422, `Invalid GitHub App configuration: ${problem}`);
    const m = manifest as Manifest;
    const code = registrations.register(m, owner);
    if (m.redirect_url === undefined) return redirect(`${emulator.webUrl}/settings/apps/${emulator.store.app.slug}`);
    const target = new URL(m.redirect_url);
    target.searchParams.set('code', code);
    const state = form.get('state');
    if (state !== null) target.searchParams.set('state', state);
    return redirect(target.toString());
  });

  router.add(
    'POST',
    '/app-manifests/{code}/conversions',
    (ctx) => {
      const found = registrations.convert(ctx.params.code ?? '');
      if (found === undefined) throw notFound();
      return {
        status: 201,
        body: { ...shapes.integration(found.app.slug), client_id: found.app.clientId, client_secret: found.clientSecret, webhook_secret: found.webhookSecret, pem: found.pem },
      };
    },
    { auth: 'none' },
  );
}
