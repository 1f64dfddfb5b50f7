import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DB_SERVICES, type DbService, SERVICE_GRANTS, TABLE_NAMES } from '../src/index.ts';

/**
 * The schema is split by owning service: a table is declared in the file of the service that
 * writes it (inserts its rows), and its comment names every other service that touches it. Both
 * are checked against the grants the database roles really have, so the comments cannot drift.
 */
const DIR = join(import.meta.dirname, '../src/schema');
const WORD: Record<DbService, string> = {
  gateway: 'gateway',
  agent: 'agent',
  router: 'router',
  logger: 'logger',
  'mcp-executor': 'executor',
  messaging: 'messaging',
};

/** Each table's interface name, from `Database` in schema.ts. */
function interfaceOf(): Map<string, string> {
  const index = readFileSync(join(DIR, '..', 'schema.ts'), 'utf8');
  const body = index.slice(index.indexOf('export interface Database {'));
  return new Map(
    [...body.matchAll(/^ {2}(\w+): (\w+Table);$/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
}

/** Where each interface is declared, and its doc comment. */
function declarations(): Map<string, { file: string; doc: string }> {
  const found = new Map<string, { file: string; doc: string }>();
  for (const file of readdirSync(DIR)) {
    const text = readFileSync(join(DIR, file), 'utf8');
    for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export interface (\w+Table) /g))
      found.set(m[2] as string, {
        file: file.replace(/\.ts$/, ''),
        doc: (m[1] as string).replace(/\s*\*\s*/g, ' '),
      });
  }
  return found;
}

const writes = (service: DbService, table: string) => {
  const access = SERVICE_GRANTS[service][table];
  return Boolean(access?.insert || access?.update || access?.delete);
};

describe('every table says which service owns it, and who else writes or reads it', () => {
  const interfaces = interfaceOf();
  const declared = declarations();

  it('declares every table once, in its owner’s file', () => {
    expect([...interfaces.keys()].sort()).toEqual([...TABLE_NAMES].sort());
    for (const table of TABLE_NAMES) {
      const where = declared.get(interfaces.get(table) as string);
      expect(where, table).toBeDefined();
      const owner = where?.file as string;
      if (owner === 'reference') {
        // Reference data: no service may change it.
        for (const service of DB_SERVICES)
          expect(writes(service, table), `${service} writes ${table}`).toBe(false);
      } else {
        expect(DB_SERVICES, table).toContain(owner);
        expect(SERVICE_GRANTS[owner as DbService][table]?.insert, `${owner} inserts into ${table}`).toBe(
          true,
        );
      }
    }
  });

  it('names, in each table’s comment, every service whose role may touch it, and no other', () => {
    for (const table of TABLE_NAMES) {
      const { doc, file } = declared.get(interfaces.get(table) as string) as { doc: string; file: string };
      for (const service of DB_SERVICES) {
        const touches = SERVICE_GRANTS[service][table] !== undefined;
        const named = new RegExp(`\\b${WORD[service]}\\b`, 'i').test(doc);
        if (touches)
          expect(named, `${table} (${file}.ts) should name the ${WORD[service]}: ${doc}`).toBe(true);
        else
          expect(named, `${table} (${file}.ts) names the ${WORD[service]}, which has no grant: ${doc}`).toBe(
            false,
          );
      }
    }
  });
});
