import type { ToolDefinition } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import {
  buildContainers,
  checkContainerCall,
  closestName,
  collapseTools,
  makeContainer,
  toWire,
} from '../src/containers.ts';
import { demoBooksDefinitions } from './helpers.ts';

const registry = demoBooksDefinitions();
const containers = buildContainers(registry);
const invoices = containers.find((c) => c.name === 'invoices')!;
const tool = (name: string, props: Record<string, unknown> = {}): ToolDefinition => ({
  name,
  inputSchema: { type: 'object', properties: props },
  isWrite: false,
});

describe('building containers from the tool groups', () => {
  it('makes one container per group that has tools, named after the group, with a no-argument schema', () => {
    const names = containers.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['invoices', 'bills', 'payments', 'customers', 'journal']));
    expect(names).not.toContain('inventory');
    expect(invoices.functions).toEqual([
      'get_all_invoices',
      'get_invoice',
      'create_invoice',
      'update_invoice',
      'void_invoice',
      'send_invoice',
    ]);
    expect(invoices.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(invoices.description).toContain("Call 'invoices' with NO arguments");
    expect(toWire(invoices)).not.toHaveProperty('tools');
  });

  it('keeps only the asked groups and collapses by TOOL_COLLAPSE with an auto threshold', () => {
    expect(buildContainers(registry, ['bills']).map((c) => c.name)).toEqual(['bills']);
    expect(collapseTools(registry, { mode: 'never', threshold: 0 })).toMatchObject({
      collapsed: false,
      containers: [],
    });
    expect(collapseTools(registry, { mode: 'auto', threshold: registry.length }).collapsed).toBe(false);
    const auto = collapseTools(registry, { mode: 'auto', threshold: registry.length - 1 });
    expect(auto.collapsed).toBe(true);
    const always = collapseTools([...registry, tool('ping')], { mode: 'always', threshold: 1000 });
    // A tool in no group is offered as itself.
    expect(always.tools.map((t) => t.name)).toEqual(['ping']);
  });
});

describe('checking calls of containers and of regular functions', () => {
  describe('container detection', () => {
    it('B1: a container called with parameters gets container_invocation_error', () => {
      const check = checkContainerCall(
        'invoices',
        { function: 'get_all_invoices', Status: 'PAID' },
        containers,
      );
      expect(check.kind).toBe('error');
      if (check.kind !== 'error') return;
      expect(check.response).toMatchObject({
        error_type: 'container_invocation_error',
        container_name: 'invoices',
        available_functions: invoices.functions,
        error_message:
          "'invoices' is a container function that groups related functions. It cannot be called with parameters.",
        suggested_function: 'get_all_invoices',
      });
      expect(check.verdict).toMatchObject({ name: 'invoices', expand: false });
    });

    it('B2: a container called without parameters expands into its functions', () => {
      const check = checkContainerCall('invoices', undefined, containers);
      expect(check.kind).toBe('expand');
      if (check.kind !== 'expand') return;
      expect(check.functions.map((f) => f.name)).toEqual(invoices.functions);
      expect(check.functions[2]?.inputSchema).toEqual(
        registry.find((t) => t.name === 'create_invoice')?.inputSchema,
      );
      expect(check.verdict).toEqual({ name: 'invoices', expand: true, functions: invoices.functions });
    });

    it('B3: an empty JSON object, null, "" and "{}" text all expand', () => {
      for (const args of [{}, null, '', '{}'])
        expect(checkContainerCall('bills', args, containers).kind).toBe('expand');
      expect(checkContainerCall('bills', undefined, containers, '  ').kind).toBe('expand');
      expect(checkContainerCall('bills', undefined, containers, '{"a":1}').kind).toBe('error');
    });

    it('B4: nested parameters are detected and named', () => {
      const check = checkContainerCall(
        'payments',
        { parameters: { function: 'create_paymnet', Amount: 5 } },
        containers,
      );
      expect(check.kind).toBe('error');
      if (check.kind !== 'error') return;
      expect(check.response.error_message).toContain("(not even nested under 'parameters')");
    });
  });

  describe('different container types', () => {
    const cases: [string, ReturnType<typeof makeContainer>][] = [
      [
        'C1: a source-generated plugin container',
        makeContainer(
          'Math',
          ['Add', 'Multiply'].map((n) => tool(n)),
        ),
      ],
      ['C2: an MCP server container', invoices],
      [
        'C3: a frontend tools container',
        makeContainer('ui', [tool('show_chart'), tool('open_invoice_pdf')], 'screen actions'),
      ],
      [
        'C4: a skill container',
        makeContainer('month_end_close', [tool('get_trial_balance')], 'month-end close steps'),
      ],
    ];
    it.each(cases)('%s expands with no arguments and refuses arguments', (_label, container) => {
      const expanded = checkContainerCall(container.name, {}, [container]);
      expect(expanded).toMatchObject({ kind: 'expand', verdict: { functions: container.functions } });
      const refused = checkContainerCall(container.name, { x: 1 }, [container]);
      expect(refused).toMatchObject({
        kind: 'error',
        response: { container_name: container.name, available_functions: container.functions },
      });
    });
  });

  describe('error message guidance', () => {
    it('D1: shows the first 5 function names and "..."', () => {
      const check = checkContainerCall('invoices', { a: 1 }, containers);
      if (check.kind !== 'error') throw new Error('expected an error');
      expect(check.response.retry_guidance).toBe(
        "This requires TWO separate tool calls: (1) First call 'invoices' with NO arguments to expand it. (2) After expansion succeeds, call the individual function you need. Available functions: get_all_invoices, get_invoice, create_invoice, update_invoice, void_invoice, ...",
      );
    });

    it('D2: gives generic guidance when the container has no function names', () => {
      const empty = makeContainer('empty', []);
      const check = checkContainerCall('empty', { a: 1 }, [empty]);
      if (check.kind !== 'error') throw new Error('expected an error');
      expect(check.response.retry_guidance).toBe(
        "This requires TWO separate tool calls: (1) First call 'empty' with NO arguments to expand it. (2) After expansion succeeds, call the individual function you need from the list it returns.",
      );
      expect(check.response.available_functions).toEqual([]);
    });

    it('D3: captures the attempted parameters, also for text that is not JSON', () => {
      const attempted = { function: 'Add', a: 5, b: 10, nested: { deep: [1] } };
      const check = checkContainerCall('invoices', attempted, containers);
      if (check.kind !== 'error') throw new Error('expected an error');
      expect(check.response.attempted_parameters).toEqual(attempted);
      const raw = checkContainerCall('invoices', undefined, containers, 'function=Add');
      if (raw.kind !== 'error') throw new Error('expected an error');
      expect(raw.response.attempted_parameters).toEqual({ '(arguments)': 'function=Add' });
    });
  });

  describe('regular functions', () => {
    it('E1: a regular function is not a container call, with or without arguments', () => {
      expect(checkContainerCall('get_all_invoices', { Status: 'PAID' }, containers)).toEqual({
        kind: 'none',
      });
      expect(checkContainerCall('create_invoice', {}, containers)).toEqual({ kind: 'none' });
    });

    it('E2: a function in no group and names with dots but no container are unaffected', () => {
      expect(checkContainerCall('ping', { a: 1 }, containers)).toEqual({ kind: 'none' });
      expect(checkContainerCall('files.read', { a: 1 }, containers)).toEqual({ kind: 'none' });
    });
  });
});

describe('dot notation and near misses', () => {
  it('detects dot notation and points at the function', () => {
    const check = checkContainerCall('invoices.get_all_invoices', { Status: 'PAID' }, containers);
    if (check.kind !== 'error') throw new Error('expected an error');
    expect(check.response.suggested_function).toBe('get_all_invoices');
    expect(check.response.attempted_parameters).toEqual({ function: 'get_all_invoices', Status: 'PAID' });
    expect(check.response.error_message).toContain('dot notation');
    expect(check.response.retry_guidance).toContain("call 'get_all_invoices' directly");
  });

  it('suggests the closest function name for a near miss and none for a guess', () => {
    expect(closestName('get_all_invoice', invoices.functions)).toBe('get_all_invoices');
    expect(closestName('Void_Invoce', invoices.functions)).toBe('void_invoice');
    expect(closestName('launch_rocket', invoices.functions)).toBeUndefined();
    const check = checkContainerCall('invoices.voidinvoice', {}, containers);
    if (check.kind !== 'error') throw new Error('expected an error');
    expect(check.response.error_message).toContain(
      "There is no function 'voidinvoice'; did you mean 'void_invoice'?",
    );
  });
});
