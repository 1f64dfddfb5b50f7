import { ConfigError } from '@munim/kit';
import { describe, expect, it } from 'vitest';
import { loadEnv } from '../src/env.ts';

const base = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' };

describe('agent configuration', () => {
  it('refuses CONFIRM_TIERS other than every tier, pointing to the tool policy', () => {
    expect(() => loadEnv({ ...base, CONFIRM_TIERS: 'none' })).toThrow(/CONFIRM_TIERS.*TOOL_POLICY_FILE/);
    expect(() => loadEnv({ ...base, CONFIRM_TIERS: '3' })).toThrow(/CONFIRM_TIERS/);
    expect(loadEnv({ ...base, CONFIRM_TIERS: '1, 2, 3' }).CONFIRM_TIERS).toBe('1, 2, 3');
  });

  it('names the variable that is wrong', () => {
    expect(() => loadEnv({ ...base, CONFIRM_TIERS: '4' })).toThrow(ConfigError);
    expect(() => loadEnv({ ...base, CONFIRM_TIERS: '4' })).toThrow(/CONFIRM_TIERS/);
    expect(() => loadEnv({})).toThrow(/DATABASE_URL/);
    expect(() => loadEnv({ ...base, OPENAI_BASE_URL: 'not a url' })).toThrow(/OPENAI_BASE_URL/);
    expect(() => loadEnv({ ...base, LLM_API_STYLE: 'anthropic' })).toThrow(/LLM_API_STYLE/);
  });
});
