import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@munim/kit';
import { describe, expect, it } from 'vitest';
import { loadEnv } from '../src/env.ts';

/**
 * `APPROVAL_POLICY_FILE` is read when the agent starts: YAML or JSON, and a bad file stops it with
 * a message naming the variable, the file and the entry that is wrong.
 */
const base = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' };
const dir = mkdtempSync(join(tmpdir(), 'munim-approval-policy-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('the approval policy file', () => {
  it('is read as YAML or JSON', () => {
    // The example of the documentation, as written there.
    const yaml = file(
      'policy.yaml',
      [
        'rules:',
        '  - match: { class: payment, minAmount: 100000 }  # class: payment | transfer | document | journal | party | edit | destructive | send | any; or tool: <glob>',
        '    approvers: 1                                  # people other than the maker',
        '    roles: [approver, owner]                      # who may approve',
        '  - match: { class: destructive }',
        '    approvers: 1',
        '    roles: [approver]',
        'limits:',
        '  maker: { maxAmount: 50000 }                     # what a role may confirm alone',
      ].join('\n'),
    );
    const json = file('policy.json', JSON.stringify({ rules: [], limits: { owner: { maxAmount: 1e7 } } }));
    expect(loadEnv({ ...base, APPROVAL_POLICY_FILE: yaml }).APPROVAL_POLICY_FILE?.policy).toEqual({
      rules: [
        { match: { class: 'payment', minAmount: 100000 }, approvers: 1, roles: ['approver', 'owner'] },
        { match: { class: 'destructive' }, approvers: 1, roles: ['approver'] },
      ],
      limits: { maker: { maxAmount: 50000 } },
    });
    expect(loadEnv({ ...base, APPROVAL_POLICY_FILE: json }).APPROVAL_POLICY_FILE?.policy.limits).toEqual({
      owner: { maxAmount: 1e7 },
    });
    expect(loadEnv(base).APPROVAL_POLICY_FILE).toBeUndefined();
  });

  it('stops the agent naming the variable, the file and the entry when it is wrong', () => {
    const bad: [string, RegExp][] = [
      [
        file('typo.yaml', 'rules:\n  - match: { class: paymnet }\n    approvers: 1\n    roles: [owner]\n'),
        /APPROVAL_POLICY_FILE: .*typo\.yaml: rules\[0\]\.match\.class: unknown class "paymnet"/,
      ],
      [
        file('limit.json', '{"limits":{"boss":{"maxAmount":5}}}'),
        /APPROVAL_POLICY_FILE: .*limits\.boss: unknown role/,
      ],
      [file('broken.yaml', 'rules: [\n'), /APPROVAL_POLICY_FILE: .*broken\.yaml is not valid JSON or YAML/],
      [join(dir, 'missing.yaml'), /APPROVAL_POLICY_FILE: cannot be read \(ENOENT\)/],
    ];
    for (const [path, message] of bad) {
      expect(() => loadEnv({ ...base, APPROVAL_POLICY_FILE: path }), path).toThrow(ConfigError);
      expect(() => loadEnv({ ...base, APPROVAL_POLICY_FILE: path }), path).toThrow(message);
    }
  });
});
