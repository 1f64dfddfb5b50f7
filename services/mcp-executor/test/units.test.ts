import { McpError, ErrorCode as McpErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '@munim/kit';
import { describe, expect, it } from 'vitest';
import { classifyFailure, extractResult, sanitizeMessage, truncateResult } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';

describe('result extraction', () => {
  it('prefers structuredContent, then JSON text, then text; describes binary parts without their bytes', () => {
    expect(
      extractResult({ structuredContent: { a: 1 }, content: [{ type: 'text', text: '{"a":2}' }] }),
    ).toEqual({ a: 1 });
    expect(extractResult({ content: [{ type: 'text', text: '{"a":2}' }] })).toEqual({ a: 2 });
    expect(extractResult({ content: [{ type: 'text', text: '{"a":' }] })).toBe('{"a":');
    expect(extractResult({ content: [{ type: 'text', text: '12 invoices' }] })).toBe('12 invoices');
    expect(
      extractResult({
        content: [
          { type: 'text', text: '{"a":1}' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
      }),
    ).toEqual([{ a: 1 }, { type: 'image', mimeType: 'image/png' }]);
  });
});

describe('truncation', () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, name: `row number ${i}`, amount: i * 10 }));

  it('leaves a result that fits alone', () => {
    expect(truncateResult({ rows: rows.slice(0, 3) }, 10_000)).toEqual({
      value: { rows: rows.slice(0, 3) },
      truncated: false,
    });
  });

  it('keeps the leading items of a bare array that fit and counts them', () => {
    const { value, truncated } = truncateResult(rows, 2_000);
    const out = value as { items: typeof rows; truncated: boolean; total_items: number; shown_items: number };
    expect(truncated).toBe(true);
    expect(out.total_items).toBe(500);
    expect(out.items).toEqual(rows.slice(0, out.shown_items));
    expect(JSON.stringify(out).length).toBeLessThanOrEqual(2_000);
    // One more item would not have fitted.
    expect(JSON.stringify({ ...out, items: rows.slice(0, out.shown_items + 1) }).length).toBeGreaterThan(
      2_000,
    );
  });

  it('truncates the biggest nested array and keeps the other fields', () => {
    const { value } = truncateResult({ report: { title: 'Aging', rows, small: [1, 2] }, total: 42 }, 1_500);
    const out = value as {
      report: { title: string; rows: unknown[]; small: number[] };
      total: number;
      shown_items: number;
    };
    expect(out.report.title).toBe('Aging');
    expect(out.report.small).toEqual([1, 2]);
    expect(out.total).toBe(42);
    expect(out.report.rows).toHaveLength(out.shown_items);
    expect(JSON.stringify(out).length).toBeLessThanOrEqual(1_500);
  });

  it('cuts long text and says how long it was', () => {
    const { value, truncated } = truncateResult('x\n'.repeat(5_000), 1_000);
    expect(truncated).toBe(true);
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(1_000);
    expect(value as string).toContain('10000 characters');
  });
});

describe('failure classification and sanitizing', () => {
  it('tells timeouts, transport failures, unknown tools and tool errors apart', () => {
    expect(classifyFailure(new McpError(McpErrorCode.RequestTimeout, 'Request timed out'))).toBe('timeout');
    expect(classifyFailure(new McpError(McpErrorCode.ConnectionClosed, 'Connection closed'))).toBe(
      'transport',
    );
    expect(classifyFailure(new TypeError('fetch failed'))).toBe('transport');
    expect(classifyFailure(new McpError(McpErrorCode.InvalidParams, 'Tool foo not found'))).toBe(
      'tool_not_found',
    );
    expect(classifyFailure(new McpError(McpErrorCode.InternalError, 'db down'))).toBe('protocol');
  });

  it('removes the MCP error prefix, links and secrets', () => {
    expect(sanitizeMessage('MCP error -32603: failed at https://x.test/a?token=1 with token=abc', [])).toBe(
      'failed at [link] with token=[redacted]',
    );
    expect(sanitizeMessage('   ', [], 'fallback')).toBe('fallback');
  });
});

describe('environment', () => {
  it('requires MCP_SERVER_URL and DATABASE_URL and applies the documented defaults', () => {
    const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
    expect(() => loadEnv({})).toThrow(ConfigError);
    expect(() => loadEnv({ DATABASE_URL })).toThrow(/MCP_SERVER_URL/);
    expect(() => loadEnv({ MCP_SERVER_URL: 'http://x/mcp' })).toThrow(/DATABASE_URL/);
    expect(() => loadEnv({ DATABASE_URL, MCP_SERVER_URL: 'not a url' })).toThrow(/MCP_SERVER_URL/);
    expect(() =>
      loadEnv({ DATABASE_URL, MCP_SERVER_URL: 'http://x/mcp', MCP_READ_TIMEOUT_MS: 'soon' }),
    ).toThrow(/MCP_READ_TIMEOUT_MS/);
    expect(loadEnv({ DATABASE_URL, MCP_SERVER_URL: 'http://127.0.0.1:3100/mcp' })).toMatchObject({
      MCP_SERVER_URL: 'http://127.0.0.1:3100/mcp',
      MCP_READ_TIMEOUT_MS: 30_000,
      MCP_WRITE_TIMEOUT_MS: 60_000,
      TOOL_RESULT_MAX_CHARS: 50_000,
      IDEMPOTENCY_TTL_MS: 24 * 3600 * 1000,
    });
  });
});
