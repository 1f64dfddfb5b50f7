// A request looks for a write it approved (delivered again after approving it) only when it can
// have approved one: an answer to a card, a decision on an approval, or a plain yes not over MCP.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainYes, mayApprove, PLAIN_YES } from '../src/confirmation/plain-yes.ts';

const mcqResponse = { actionId: 'act-1', value: 'confirm' as const };
const approvalDecision = { approvalId: 'apr-1', decision: 'approve' as const };
const channels = fc.constantFrom('http' as const, 'mcp' as const, 'messaging' as const, undefined);

describe('which requests may approve a write', () => {
  it.each([
    [{ query: 'show all invoices' }, false],
    [{ query: 'create a customer called Ravi' }, false],
    [{ query: 'yes' }, true],
    [{ query: 'haan ji kar do', channel: 'messaging' as const }, true],
    [{ query: 'yes', channel: 'mcp' as const }, false],
    [{ query: 'yes but make it ₹4,500' }, false],
    [{ query: '', mcqResponse }, true],
    [{ query: '', mcqResponse, channel: 'mcp' as const }, true],
    [{ query: 'approve', approvalDecision }, true],
  ])('%j → %s', (data, may) => {
    expect(mayApprove(data)).toBe(may);
  });

  it('a question that is no plain yes, with no card answered and no decision, approves nothing', () => {
    fc.assert(
      fc.property(
        fc.string().filter((q) => !PLAIN_YES.test(q)),
        channels,
        (query, channel) => {
          expect(mayApprove({ query, channel })).toBe(false);
        },
      ),
    );
  });

  it('an answer to a card or a decision may approve, whatever its text and channel', () => {
    fc.assert(
      fc.property(fc.string(), channels, fc.boolean(), (query, channel, card) => {
        const data = card ? { query, channel, mcqResponse } : { query, channel, approvalDecision };
        expect(mayApprove(data)).toBe(true);
      }),
    );
  });

  it('a plain yes may approve over every channel but MCP', () => {
    fc.assert(
      fc.property(fc.constantFrom('yes', 'ok', 'haan', 'theek hai', 'हाँ जी'), channels, (query, channel) => {
        expect(isPlainYes({ query, channel })).toBe(channel !== 'mcp');
        expect(mayApprove({ query, channel })).toBe(channel !== 'mcp');
      }),
    );
  });
});
