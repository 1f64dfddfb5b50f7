/**
 * The scripted model of the load benchmark's mixed scenario, in its own process (`forkScriptedLlm`).
 * Fifty clients run the same scripts at once, so every answer is a function of the request alone
 * (a script's turn cursor is shared by all of them): a read calls one report tool and then
 * answers; a write proposes `create_customer` for the name in the question and, once the tool
 * result is in the conversation, says it is done.
 */
import type { ChildProcess } from 'node:child_process';
import { type ChatRequest, lastUserText, offeredToolNames, startScriptedLlm } from '@munim/scripted-llm';
import { forkServer } from './child.ts';

/** The fast-path read: the pipeline fetches the data, and with a model configured the model words it. */
export const FAST_QUERY = 'show all invoices';
/** A question the router sends to the model (no intent or fast path answers it). */
export const LLM_READ = 'which customers owe me the most and what should I do about it';
/** The write, with `{tag}` for a fresh name per flow. */
export const LLM_WRITE = 'please create customer bench-{tag}';

const READ_TOOL = 'get_aged_receivables_report';
const WRITE_TOOL = 'create_customer';

const hasToolResult = (req: ChatRequest) => req.messages.some((m) => m.role === 'tool');

export interface ForkedLlm {
  baseURL: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the scripted model in a process of its own. */
export async function forkScriptedLlm(apiKey: string): Promise<ForkedLlm> {
  const { ready, child, stop } = await forkServer<{ baseURL: string }>(
    import.meta.url,
    { apiKey },
    'scripted model',
  );
  return { baseURL: ready.baseURL, child, stop };
}

if (import.meta.main) {
  process.once('message', async ({ apiKey }: { apiKey: string }) => {
    const llm = await startScriptedLlm({ apiKey });
    llm.script({
      match: LLM_READ,
      repeat: true,
      turns: [
        (req) =>
          hasToolResult(req) || !offeredToolNames(req).includes(READ_TOOL)
            ? { content: 'Acme Corp owes the most; send a reminder for the invoices past 30 days.' }
            : { toolCalls: [{ name: READ_TOOL, arguments: {} }] },
      ],
    });
    llm.script({ match: FAST_QUERY, repeat: true, turns: [{ content: 'Here are all your invoices.' }] });
    llm.script({
      match: LLM_WRITE.replace('{tag}', ''),
      repeat: true,
      turns: [
        (req) => {
          if (hasToolResult(req)) return { content: 'Done: the customer is created.' };
          const name = /customer (bench-[a-z0-9]+)/.exec(lastUserText(req))?.[1] ?? 'bench';
          return { toolCalls: [{ name: WRITE_TOOL, arguments: { Name: name } }] };
        },
      ],
    });
    // The server records every request for tests to inspect; nobody does here, so memory stays flat.
    setInterval(() => {
      llm.requests.length = 0;
    }, 1000).unref();
    process.send?.({ baseURL: llm.baseURL });
    process.disconnect();
    process.once('SIGTERM', () => void llm.close().then(() => process.exit(0)));
  });
}
