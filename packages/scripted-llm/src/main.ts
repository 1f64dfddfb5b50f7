// CLI: starts the scripted LLM on $PORT (default: a free port) and $HOST (default 127.0.0.1),
// with scripts from the JSON file $SCRIPTS_FILE, optionally requiring $API_KEY; prints the base URL.
//
// SCRIPTS_FILE holds an array of scripts (or `{ "scripts": [...] }`) whose `match` is a string
// (case-insensitive substring of the last user message), e.g.
//   [{ "name": "cash", "match": "cash balance", "repeat": true,
//      "turns": [{ "toolCalls": [{ "name": "get_cash", "arguments": {} }] }, { "content": "You have 5,000." }] }]
import { readFile } from 'node:fs/promises';
import { type Script, startScriptedLlm } from './index.ts';
import { turnProblem } from './scripts.ts';

async function loadScripts(file: string): Promise<Script[]> {
  const raw: unknown = JSON.parse(await readFile(file, 'utf8'));
  const list = Array.isArray(raw) ? raw : (raw as { scripts?: unknown } | null)?.scripts;
  if (!Array.isArray(list)) throw new Error(`${file}: expected an array of scripts or { "scripts": [...] }`);
  return list.map((item: unknown, i): Script => {
    const s = item as Record<string, unknown> | null;
    if (typeof s !== 'object' || s === null) throw new Error(`${file}: script ${i} must be an object`);
    if (typeof s.match !== 'string') throw new Error(`${file}: script ${i}: "match" must be a string`);
    if (s.name !== undefined && typeof s.name !== 'string')
      throw new Error(`${file}: script ${i}: "name" must be a string`);
    if (!Array.isArray(s.turns)) throw new Error(`${file}: script ${i}: "turns" must be an array`);
    for (const [j, turn] of s.turns.entries()) {
      const problem = turnProblem(turn);
      if (problem) throw new Error(`${file}: script ${i} turn ${j}: ${problem}`);
    }
    const script: Script = { match: s.match, turns: s.turns, repeat: s.repeat === true };
    if (typeof s.name === 'string') script.name = s.name;
    return script;
  });
}

async function main(): Promise<void> {
  const file = process.env.SCRIPTS_FILE;
  const scripts = file ? await loadScripts(file) : [];
  const port = process.env.PORT ? Number(process.env.PORT) : 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${process.env.PORT}`);
  const llm = await startScriptedLlm({
    port,
    host: process.env.HOST ?? '127.0.0.1',
    ...(process.env.API_KEY ? { apiKey: process.env.API_KEY } : {}),
  });
  for (const s of scripts) llm.script(s);
  process.stdout.write(`${llm.baseURL}\n`);
  const stop = (): void => {
    llm.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`scripted-llm: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
