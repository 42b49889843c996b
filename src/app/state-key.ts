// The key that signs the state block of baton's status comments. The state's integrity must
// not rest on an optional setting: anyone who can edit a comment of baton's could otherwise
// recompute a plain hash and hand a run a state of their choosing. BATON_STATE_SECRET, when
// set, is the key (it survives a rotation of the App's private key); without it the key is
// derived from the App's private key, which only the App holds. An App with neither refuses
// to start rather than run unsigned.
import { createHmac } from 'node:crypto';
import { getPrivateKey } from '@probot/get-private-key';

/** A key only the holder of `pem` can compute; fixed per key, so records stay readable across restarts. */
export function stateKeyFromPrivateKey(pem: string): string {
  return createHmac('sha256', 'baton status comment state block v1').update(pem.trim()).digest('hex');
}

export class MissingStateKeyError extends Error {}

export function resolveStateSecret(o: { stateSecret?: string | undefined; privateKey?: string | undefined }, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = o.stateSecret ?? env.BATON_STATE_SECRET;
  if (explicit) return explicit;
  const pem = o.privateKey ?? getPrivateKey({ env });
  if (pem) return stateKeyFromPrivateKey(pem);
  throw new MissingStateKeyError(
    'baton cannot sign the state in its status comments: set BATON_STATE_SECRET (for example `openssl rand -hex 32`), or give the App its private key as Probot reads it (PRIVATE_KEY or PRIVATE_KEY_PATH)',
  );
}
