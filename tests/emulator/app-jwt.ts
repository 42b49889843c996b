/** An App JWT as Probot and Octokit sign one: RS256, `iss` = the App's id, valid for five minutes. */
import { createSign } from 'node:crypto';

export function signAppJwt(appId: number | string, pem: string): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const nowS = Math.floor(Date.now() / 1000);
  const unsigned = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iat: nowS - 30, exp: nowS + 300, iss: appId })}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(pem, 'base64url')}`;
}

/** A well-formed RS256 JWT of App 1; an emulator without the App's public key does not check signatures. */
export function fakeJwt(): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iat: now - 60, exp: now + 540, iss: 1 })}.c2lnbmF0dXJl`;
}
