import { classifyTool, type ToolDefinition } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { SchemaCompiler, validateCall } from '../src/app.ts';
import { demoBooksDefinitions } from './helpers.ts';
import { indiaBooks } from './tax-support.ts';

const compiler = new SchemaCompiler();
const books = indiaBooks();

function tool(name: string, properties: Record<string, unknown>): ToolDefinition {
  const access = classifyTool(name);
  return {
    name,
    isWrite: access.kind === 'write',
    access,
    inputSchema: { type: 'object', properties, additionalProperties: false },
  };
}

const check = (definition: ToolDefinition, args: unknown, withBooks = true) =>
  validateCall(
    definition,
    { tool: definition.name, args, callId: 'c', attempt: 1, ...(withBooks ? { books } : {}) },
    compiler,
    new Set(),
  );

const createItem = tool('create_item', {
  name: { type: 'string' },
  itemCode: { type: 'string', description: 'HSN or SAC code of the item' },
  skuCode: { type: 'string', description: 'Your own stock code' },
  vendorName: { type: 'string', description: 'As on the vendor PAN card' },
});

describe('tax checks in a validation', () => {
  it('blocks a write, says why in its message, and lists the issues with their codes', () => {
    const createInvoice = demoBooksDefinitions().find((d) => d.name === 'create_invoice') as ToolDefinition;
    const args = {
      ContactId: '5f0c3c2e-8d7a-4c1e-9a55-0b6f8c3f2a11',
      Date: '2025-10-01',
      Lines: [{ Description: 'Panel', Quantity: 2, UnitPrice: 500, TaxRate: 12 }],
      Total: 1180,
    };
    const result = check(createInvoice, args);
    expect(result.status).toBe('blocked');
    expect(result.issues.map((i) => [i.code, i.field])).toEqual([
      ['rate_invalid', 'Lines[0].TaxRate'],
      ['total_mismatch', 'Total'],
    ]);
    expect(result.message).toContain('charges GST at 12%');
    expect(result.message).toContain('Total is ₹1,180.00');
    expect(result.guardrails).toContain('write_preflight_block');
    const right = check(createInvoice, { ...args, Lines: [{ ...args.Lines[0], TaxRate: 18 }] });
    expect(right.status).toBe('passed');
  });

  it('checks a code field the schema describes as HSN/SAC, and no field only mentioned beside one', () => {
    expect(check(createItem, { name: 'Rice', itemCode: '1006' }).status).toBe('passed');
    const wrong = check(createItem, { name: 'Rice', itemCode: 'RICE-25' });
    expect(wrong.issues.map((i) => [i.code, i.field])).toEqual([['hsn_invalid', 'itemCode']]);
    expect(check(createItem, { name: 'Rice', skuCode: 'RICE-25', vendorName: 'Kale' }).status).toBe('passed');
  });

  it('never checks a read, and without the books checks only the arithmetic', () => {
    const read = tool('get_invoice', { gstin: { type: 'string' }, tax_rate: { type: 'number' } });
    expect(check(read, { gstin: 'X', tax_rate: 12 }).status).toBe('passed');
    const record = tool('create_invoice', {
      gstin: { type: 'string' },
      lines: { type: 'array', items: { type: 'object' } },
      total: { type: 'number' },
    });
    const args = { gstin: 'NOT-A-GSTIN', lines: [{ qty: 1, price: 100, tax_rate: 12, tax: 12 }], total: 112 };
    expect(check(record, args, false).status).toBe('passed');
    expect(check(record, { ...args, total: 113 }, false).issues.map((i) => i.code)).toEqual([
      'total_mismatch',
    ]);
    expect(
      check(record, args)
        .issues.map((i) => i.code)
        .sort(),
    ).toEqual(['gstin_invalid', 'rate_invalid']);
  });
});
