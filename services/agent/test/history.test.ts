// Long conversations keep their context. Every message that falls out of the
// verbatim window reaches the model in the summary, and making the summary costs the tool loop
// none of its iterations. The model is the scripted LLM over HTTP; validator, executor and store
// are played in-process (fake-agent.ts).

import type { ConversationMessage } from '@munim/db';
import { contentText, type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm } from '../src/model/llm.ts';
import { runLlmPath } from '../src/turn/llm-path.ts';
import { fakeAgent, routed, toolDef } from './fake-agent.ts';

let server: ScriptedLlm;
beforeAll(async () => {
  server = await startScriptedLlm({ apiKey: 'k-1' });
});
afterAll(async () => {
  await server.close();
});

const llm = () =>
  createLlm({ baseURL: server.baseURL, apiKey: 'k-1', model: 'm', provider: 'openai', timeoutMs: 5000 });

/** A conversation of `count` messages; the first turn says who the auditor is. */
function conversation(count: number, tag: string): ConversationMessage[] {
  return Array.from({ length: count }, (_, i) => {
    const role = i % 2 === 0 ? ('user' as const) : ('assistant' as const);
    if (i === 0) return { role, content: `Our auditor is Mehta & Associates, remember that (${tag}).` };
    if (i === 1) return { role, content: 'Noted: Mehta & Associates audit your books.' };
    return { role, content: `${role} message ${i + 1} of ${tag}` };
  });
}

const SUMMARY = 'The user said their auditor is Mehta & Associates.';
const invoices = toolDef('get_all_invoices', { Status: '' });

describe('a conversation longer than the verbatim window', () => {
  it('brings the facts of its first messages to the model in the summary (15 messages)', async () => {
    const tag = 'fifteen';
    const question = `who audits us? ${tag}`;
    server.script({ match: `message 5 of ${tag}`, turns: [{ content: SUMMARY }] });
    server.script({ match: question, turns: [{ content: 'Mehta & Associates audit your books.' }] });
    const agent = fakeAgent({ tools: [invoices], llm: llm(), messages: conversation(15, tag) });

    await runLlmPath(agent.run, routed(question, [invoices.name]));

    // The summarizer was given the five messages the window of ten leaves out, the first among them.
    const [summarizing] = server.requestsFor(`message 5 of ${tag}`);
    const transcript = contentText(summarizing?.body.messages.at(-1)?.content);
    expect(transcript).toContain('Our auditor is Mehta & Associates');
    expect(transcript).toContain(`message 5 of ${tag}`);
    expect(transcript).not.toContain(`message 6 of ${tag}`);
    // The model answering the question sees the summary and the last ten messages verbatim.
    const [answering] = server.requestsFor(question);
    const seen = (answering?.body.messages ?? []).map((m) => contentText(m.content));
    expect(seen).toContain(`[Previous conversation summary]\n${SUMMARY}`);
    expect(seen.filter((text) => text.includes(`of ${tag}`))).toHaveLength(10);
    expect(seen.some((text) => text.startsWith('Our auditor is'))).toBe(false);
    expect(agent.saved).toEqual([{ summary: SUMMARY, count: 5 }]);
  });

  it('sends the messages themselves when no summary could be made: none is dropped', async () => {
    const tag = 'unsummarized';
    const question = `who audits us? ${tag}`;
    server.script({ match: `message 5 of ${tag}`, turns: [{ error: { status: 400 } }] });
    server.script({ match: question, turns: [{ content: 'Mehta & Associates.' }] });
    const agent = fakeAgent({ tools: [invoices], llm: llm(), messages: conversation(15, tag) });

    await runLlmPath(agent.run, routed(question, [invoices.name]));

    const [answering] = server.requestsFor(question);
    const said = (answering?.body.messages ?? []).filter((m) => m.role === 'user' || m.role === 'assistant');
    // All fifteen, then the question.
    expect(said).toHaveLength(16);
    expect(contentText(said[0]?.content)).toMatch(/^Our auditor is Mehta & Associates/);
    expect(agent.saved).toEqual([]);
  });

  it('still gets every tool-loop iteration when it needs a summary', async () => {
    const tag = 'iterations';
    const question = `list invoices three times ${tag}`;
    server.script({ match: `message 5 of ${tag}`, turns: [{ content: SUMMARY }] });
    const read = { name: invoices.name, arguments: { Status: 'OVERDUE' } };
    server.script({
      match: question,
      turns: [{ toolCalls: [read] }, { toolCalls: [read] }, { content: 'There are 2 overdue invoices.' }],
    });
    const agent = fakeAgent({
      tools: [invoices],
      books: () => ({ Invoices: [{ InvoiceNumber: 'INV-0001', Total: 100 }] }),
      llm: llm(),
      // Above the seed's 20, so it needs a summary whichever window applies.
      messages: conversation(25, tag),
      maxIterations: 3,
    });

    await runLlmPath(agent.run, routed(question, [invoices.name]));

    expect(server.requestsFor(`message 5 of ${tag}`)).toHaveLength(1);
    const complete = agent.events.find((e) => e.type === 'complete');
    expect(complete?.payload).toMatchObject({
      status: 'answered',
      response: expect.stringContaining('2 overdue invoices'),
      iterationCount: 3,
    });
    expect(agent.requests.filter((r) => r.subject === 'toolExecute')).toHaveLength(2);
  });
});
