/**
 * Just enough of NATS decentralised auth to test `.creds` files on a real server: an operator, an
 * account with JetStream, and user JWTs carrying a service's permissions, signed with nkeys.
 */
import { randomUUID } from 'node:crypto';
import { nkeys } from '@nats-io/nats-core';
import type { NatsPermissions } from '../src/nats-permissions.ts';

type KeyPair = ReturnType<typeof nkeys.createUser>;

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

function sign(signer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }));
  const claims = b64url(
    JSON.stringify({
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      iss: signer.getPublicKey(),
      name,
      sub: subject,
      nats: { ...nats, version: 2 },
    }),
  );
  const signature = b64url(signer.sign(new TextEncoder().encode(`${header}.${claims}`)));
  return `${header}.${claims}.${signature}`;
}

export interface Operator {
  /** Server config lines: operator mode with the account preloaded. */
  serverConf: string;
  /** A `.creds` file's text for a user with these permissions. */
  creds(name: string, permissions: NatsPermissions): string;
}

/** An operator and one account with unlimited JetStream. */
export function createOperator(): Operator {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  // JetStream needs a system account in operator mode.
  const system = nkeys.createAccount();
  const systemJwt = sign(operator, system.getPublicKey(), 'SYS', { type: 'account' });
  const operatorJwt = sign(operator, operator.getPublicKey(), 'munim-test', { type: 'operator' });
  const accountJwt = sign(operator, account.getPublicKey(), 'munim', {
    type: 'account',
    limits: {
      subs: -1,
      conn: -1,
      leaf: -1,
      imports: -1,
      exports: -1,
      data: -1,
      payload: -1,
      wildcards: true,
      mem_storage: -1,
      disk_storage: -1,
      streams: -1,
      consumer: -1,
    },
  });
  return {
    serverConf: [
      `operator: ${operatorJwt}`,
      `system_account: ${system.getPublicKey()}`,
      'resolver: MEMORY',
      `resolver_preload: { ${account.getPublicKey()}: ${accountJwt}, ${system.getPublicKey()}: ${systemJwt} }`,
    ].join('\n'),
    creds(name, permissions) {
      const user = nkeys.createUser();
      const jwt = sign(account, user.getPublicKey(), name, {
        type: 'user',
        pub: { allow: permissions.publish, deny: permissions.publishDeny },
        sub: { allow: permissions.subscribe },
        ...(permissions.responses
          ? { resp: { max: permissions.responses.max, ttl: permissions.responses.expiresMs * 1_000_000 } }
          : {}),
        subs: -1,
        data: -1,
        payload: -1,
      });
      const seed = new TextDecoder().decode(user.getSeed());
      return [
        '-----BEGIN NATS USER JWT-----',
        jwt,
        '------END NATS USER JWT------',
        '',
        '-----BEGIN USER NKEY SEED-----',
        seed,
        '------END USER NKEY SEED------',
        '',
      ].join('\n');
    },
  };
}
