import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  addressProblem,
  EndpointAllowlistSchema,
  endpointProblem,
  isLoopbackHost,
  parseEnv,
} from '../src/index.ts';

const allow = (text: string) => EndpointAllowlistSchema.parse(text);

describe('addressProblem', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd00::1', 'uniqueLocal'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressProblem(address)).toContain(`is a ${range} address`);
  });

  it.each([['8.8.8.8'], ['1.1.1.1'], ['2606:4700:4700::1111']])('allows the public address %s', (address) => {
    expect(addressProblem(address)).toBeNull();
  });

  it('allows what the allow-list covers, by address or range', () => {
    const list = allow('127.0.0.1, 10.0.0.0/8, fd00::/8');
    expect(addressProblem('127.0.0.1', list)).toBeNull();
    expect(addressProblem('127.0.0.2', list)).toContain('loopback');
    expect(addressProblem('10.200.1.1', list)).toBeNull();
    expect(addressProblem('fd12::1', list)).toBeNull();
    expect(addressProblem('169.254.169.254', list)).toContain('linkLocal');
  });
});

describe('endpointProblem', () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
  };

  it('checks every address a host resolves to', async () => {
    const resolve = resolver({
      'public.example': ['8.8.8.8', '2001:4860:4860::8888'],
      'mixed.example': ['8.8.8.8', '10.0.0.1'],
      'metadata.example': ['169.254.169.254'],
    });
    expect(await endpointProblem('https://public.example/v1', undefined, resolve)).toBeNull();
    expect(await endpointProblem('https://mixed.example/v1', undefined, resolve)).toContain(
      '10.0.0.1 is a private',
    );
    expect(await endpointProblem('http://metadata.example/latest', undefined, resolve)).toContain(
      'linkLocal',
    );
    expect(await endpointProblem('https://nowhere.example/v1', undefined, resolve)).toContain(
      'does not resolve (ENOTFOUND)',
    );
  });

  it('judges address literals without resolving, IPv6 in brackets too', async () => {
    const resolve = async (): Promise<string[]> => {
      throw new Error('must not resolve a literal');
    };
    expect(await endpointProblem('http://169.254.169.254/v1', undefined, resolve)).toContain('linkLocal');
    expect(await endpointProblem('http://[::1]:8080/v1', undefined, resolve)).toContain('loopback');
    expect(await endpointProblem('https://8.8.8.8/v1', undefined, resolve)).toBeNull();
  });

  it('resolves with the system resolver by default (localhost is loopback)', async () => {
    expect(await endpointProblem('http://localhost:11434/v1')).toContain('loopback');
    expect(await endpointProblem('http://localhost:11434/v1', allow('localhost'))).toBeNull();
    expect(await endpointProblem('http://LOCALHOST.:11434/v1', allow('localhost'))).toBeNull();
  });

  it('never puts the rest of the URL (credentials, path) in its message', async () => {
    const problem = await endpointProblem('http://user:secret-token@10.0.0.1/v1?key=k-123');
    expect(problem).toContain('10.0.0.1');
    expect(problem).not.toMatch(/secret-token|k-123|user/);
  });
});

describe('EndpointAllowlistSchema', () => {
  it('reads host names, addresses and CIDR ranges', () => {
    const list = allow(' Models.Internal , 127.0.0.1,10.0.0.0/8,[::1], fd00::/8 ');
    expect([...list.hosts]).toEqual(['models.internal']);
    expect(list.ranges.map(([address, bits]) => `${address.toString()}/${bits}`)).toEqual([
      '127.0.0.1/32',
      '10.0.0.0/8',
      '::1/128',
      'fd00::/8',
    ]);
  });

  it('names a bad entry by its position', () => {
    const schema = z.object({ LLM_ENDPOINT_ALLOWLIST: EndpointAllowlistSchema });
    expect(() => parseEnv(schema, { LLM_ENDPOINT_ALLOWLIST: 'ok.example,10.0.0.0/99,bad host' })).toThrow(
      /LLM_ENDPOINT_ALLOWLIST: entry 2 .*; LLM_ENDPOINT_ALLOWLIST: entry 3/,
    );
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.53', true],
    ['::1', true],
    ['[::1]', true],
    ['localhost', true],
    ['app.localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.5', false],
    ['example.com', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
