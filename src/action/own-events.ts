// baton's own activity, as it comes back to baton.yml. With GITHUB_TOKEN it never does
// (GitHub starts no workflow for its events), but with an App token (`--app-token`) every
// comment, check run and check suite baton writes starts baton.yml again. Each must be
// ignored — without a token for the route job, so from the payload alone.
import { RECORD_MARKER } from '../record/render.ts';

type Payload = Record<string, unknown>;

/** Every comment baton writes ends with a `<!-- baton:… -->` marker (the record, replies). */
const MARKER_PREFIX = RECORD_MARKER.slice(0, RECORD_MARKER.indexOf(':') + 1);

/** Why this event is baton's own doing and concerns no run, or undefined. */
export function ownActivity(event: string, p: Payload): string | undefined {
  if (event === 'issue_comment') {
    const c = p.comment as { body?: string | null; user?: { type?: string } | null } | undefined;
    if (c?.user?.type === 'Bot' && (c.body ?? '').includes(MARKER_PREFIX)) return "baton's own comment";
  }
  if (event === 'check_run') {
    const name = (p.check_run as { name?: string } | undefined)?.name ?? '';
    if (name.startsWith('baton / ')) return "baton's own check run";
  }
  return undefined;
}

/**
 * The id of the App baton acts as, when the check event comes from it: its bot login is
 * `<app slug>[bot]` (what actions/create-github-app-token outputs as `app-slug`). The App
 * mode asks GitHub (`GET /app`); an installation token cannot, so the payload tells.
 */
export function ourAppIdOf(event: string, p: Payload, botLogin: string): number | null {
  const source = event === 'check_run' ? (p.check_run as Payload | undefined) : event === 'check_suite' ? (p.check_suite as Payload | undefined) : undefined;
  const app = source?.app as { id?: number; slug?: string } | undefined;
  if (!app?.slug || typeof app.id !== 'number') return null;
  return `${app.slug}[bot]`.toLowerCase() === botLogin.toLowerCase() ? app.id : null;
}
