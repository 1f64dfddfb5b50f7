import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { EventPayload } from '@munim/contracts';
import { createParser } from 'eventsource-parser';

/** Somewhere the CLI writes text: a terminal, a pipe. */
interface TextOut {
  write(text: string): unknown;
}

/** Where the CLI reads answers and writes progress (stderr) and the final answer (stdout). */
export interface CliIo {
  stdin: Readable;
  stdout: TextOut;
  stderr: TextOut;
  env: NodeJS.ProcessEnv;
}

/**
 * Terminal control sequences — CSI (`ESC [ … m`, cursor moves, screen clears), OSC (`ESC ] … BEL`:
 * titles, hyperlinks, clipboard writes), other escapes — C0 and C1 control characters but newline
 * and tab, and bidirectional overrides that reorder what a reader sees.
 */
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[ -~]?|\u009b[0-?]*[ -/]*[@-~]|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text as it may reach a terminal: what the gateway, a model or a tool wrote, without control sequences. */
export const printable = (text: string): string => text.replace(CONTROL, '');

/** The same destinations, every write made printable: answers, tool names and errors come from elsewhere. */
const printableIo = (io: CliIo): CliIo => ({
  ...io,
  stdout: { write: (text) => io.stdout.write(printable(text)) },
  stderr: { write: (text) => io.stderr.write(printable(text)) },
});

const USAGE = `usage: npm run ask -- [options] "your question"
  --url <url>            gateway URL (MUNIM_URL, default http://127.0.0.1:8080)
  --key <key>            API key or token (MUNIM_API_KEY)
  --entity <id>          entity id (MUNIM_ENTITY_ID, default demo)
  --org <id>             organisation id (MUNIM_ORG_ID, default demo)
  --conversation <id>    continue a conversation
  --yes                  confirm a pending write without asking (typed confirmations still need a terminal)`;

interface SseMessage {
  event: string;
  data: Record<string, unknown>;
}

const str = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** One readable progress line for an event, or null for events not worth a line. */
export function progressLine(event: string, data: Record<string, unknown>): string | null {
  switch (event) {
    case 'connected':
      return `· request ${str(data.requestId)}`;
    case 'understanding_started':
      return '· understanding the question';
    case 'route_classified':
      return `· routed: ${str(data.path)} path, ${str(data.category)} (confidence ${str(data.confidence)})`;
    case 'tools_filtered':
      return `· ${str(data.count)} tools available`;
    case 'intent_detected':
      return data.intent ? `· intent: ${str((data.intent as { name?: string }).name ?? '')}` : null;
    case 'pipeline_executing':
      return `· step ${str(data.step)}/${str(data.total)}: ${str(data.tool)}`;
    case 'executing_tool':
      return `· calling ${str(data.tool)}`;
    case 'tool_result': {
      const ms = typeof data.duration_ms === 'number' ? ` (${data.duration_ms} ms)` : '';
      return data.success
        ? `✓ ${str(data.tool)}${ms}`
        : `✗ ${str(data.tool)} failed: ${str(data.error ?? '')}${ms}`;
    }
    case 'write_validation':
      return data.status === 'blocked'
        ? `! ${str(data.tool)} blocked: ${str(data.message ?? (data.missing_fields as string[] | undefined)?.join(', ') ?? '')}`
        : `✓ ${str(data.tool)} validated`;
    case 'tool_retry':
      return `↻ ${str(data.tool)} attempt ${str(data.attempt)}: ${str(data.reason)}`;
    case 'response_generating':
      return '· writing the answer';
    default:
      return null;
  }
}

/** POSTs a query and reads its SSE stream: every message to `onMessage`, until the stream ends. */
async function stream(
  url: string,
  key: string | undefined,
  body: unknown,
  onMessage: (m: SseMessage) => void,
) {
  const response = await fetch(`${url}/v1/query`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) {
    const text = await response.text();
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
    } catch {
      // Not JSON: show it as it is.
    }
    throw new Error(`the gateway answered ${response.status}: ${message}`);
  }
  const parser = createParser({
    onEvent: (event) => onMessage({ event: event.event ?? 'message', data: JSON.parse(event.data) }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
}

/** A confirmation card, as the gateway streams it. */
type Mcq = EventPayload<'mcq'>;

/** Asks one question on stderr and reads one line of stdin ('' once stdin has ended). */
type Prompt = (question: string) => Promise<string>;

/** A prompt over stdin; lines that arrive before they are asked for (piped input) are kept. */
function linePrompt(io: CliIo): { prompt: Prompt; close: () => void } {
  const lines = createInterface({ input: io.stdin, terminal: false });
  const iterator = lines[Symbol.asyncIterator]();
  return {
    prompt: async (question) => {
      io.stderr.write(question);
      const next = await iterator.next();
      return next.done ? '' : String(next.value);
    },
    close: () => lines.close(),
  };
}

async function askMcq(
  mcq: Mcq,
  prompt: Prompt,
  io: CliIo,
  autoConfirm: boolean,
): Promise<{ actionId: string; value: 'confirm' | 'cancel'; typedConfirmation?: string }> {
  io.stderr.write(`\n? ${mcq.question}\n  action: ${mcq.pending_tool} ${JSON.stringify(mcq.pending_args)}\n`);
  let value: 'confirm' | 'cancel';
  if (autoConfirm && !mcq.confirm_text) {
    value = 'confirm';
  } else {
    mcq.options.forEach((option, index) => {
      io.stderr.write(`  ${index + 1}) ${option.label}\n`);
    });
    const chosen = (await prompt('Your choice (number): ')).trim();
    const option = mcq.options[Number(chosen) - 1];
    value = option?.value === 'confirm' ? 'confirm' : 'cancel';
    if (!option) io.stderr.write('Not one of the options: cancelling.\n');
  }
  if (value === 'confirm' && mcq.confirm_text) {
    const typed = (await prompt(`Type "${mcq.confirm_text}" to confirm: `)).trim();
    return { actionId: mcq.actionId, value, typedConfirmation: typed };
  }
  return { actionId: mcq.actionId, value };
}

/**
 * `npm run ask -- "show overdue invoices"`: submits the query, prints progress lines to stderr,
 * asks at the prompt when a write needs confirmation, and prints the answer to stdout.
 * Resolves to the exit code: 0 answered, 1 error or cancelled, 2 usage.
 */
export async function runCli(argv: string[], raw: CliIo): Promise<number> {
  const io = printableIo(raw);
  let parsed: ReturnType<
    typeof parseArgs<{ options: Record<string, { type: 'string' | 'boolean' }>; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        entity: { type: 'string' },
        org: { type: 'string' },
        conversation: { type: 'string' },
        yes: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const query = positionals.join(' ').trim();
  if (values.help || !query) {
    io.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const url = String(values.url ?? io.env.MUNIM_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const key = (values.key as string | undefined) ?? io.env.MUNIM_API_KEY;
  const tenant = {
    entityId: String(values.entity ?? io.env.MUNIM_ENTITY_ID ?? 'demo'),
    orgId: String(values.org ?? io.env.MUNIM_ORG_ID ?? 'demo'),
  };
  const { prompt, close } = linePrompt(io);
  try {
    let body: Record<string, unknown> = {
      query,
      ...tenant,
      ...(values.conversation ? { conversationId: values.conversation } : {}),
    };
    for (;;) {
      let mcq: Mcq | undefined;
      let conversationId: string | undefined;
      let complete: Record<string, unknown> | undefined;
      let failure: Record<string, unknown> | undefined;
      let streamed = false;
      await stream(url, key, body, ({ event, data }) => {
        if (event === 'connected') conversationId = str(data.conversationId);
        if (event === 'mcq') mcq = data as unknown as Mcq;
        else if (event === 'complete') complete = data;
        else if (event === 'error') failure = data;
        else if (event === 'response_chunk') {
          if (!streamed) io.stderr.write('\n');
          streamed = true;
          io.stderr.write(str(data.text));
          return;
        } else if (event === 'response_replace') {
          // Text already on the terminal cannot be unwritten: say it was taken back, then show its replacement.
          if (streamed) io.stderr.write(data.text ? '\n· corrected:\n' : '\n· (taken back)\n');
          else if (data.text) io.stderr.write('\n');
          streamed = data.text !== '';
          io.stderr.write(str(data.text));
          return;
        }
        const line = progressLine(event, data);
        if (line) io.stderr.write(`${line}\n`);
      });
      if (streamed) io.stderr.write('\n');
      if (failure) {
        io.stderr.write(`✗ ${str(failure.code)}: ${str(failure.message)}\n`);
        return 1;
      }
      if (!complete) {
        io.stderr.write('✗ the stream ended without an answer\n');
        return 1;
      }
      io.stdout.write(`${str(complete.response)}\n`);
      if (complete.status === 'awaiting_confirmation' && mcq && conversationId) {
        const mcqResponse = await askMcq(mcq, prompt, io, values.yes === true);
        body = { ...tenant, conversationId, mcqResponse };
        continue;
      }
      io.stderr.write(`· ${str(complete.status)} · conversation ${conversationId ?? ''}\n`);
      return complete.status === 'cancelled' ? 1 : 0;
    }
  } catch (error) {
    io.stderr.write(`✗ ${(error as Error).message}\n`);
    return 1;
  } finally {
    close();
  }
}
