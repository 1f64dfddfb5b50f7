import type { QueryRouted } from '@munim/contracts';

/**
 * A plain "yes" in the conversation, in English, Hinglish or Hindi; it may
 * confirm a tier-1 action that the last answer proposed, nothing older.
 */
export const PLAIN_YES =
  /^\s*(yes|y|yeah|yep|ok(ay)?|sure|confirm(ed)?|go ahead|do it|(haan|han|ha)( ji)?( kar do)?|ji haan|kar do|karo|theek( hai)?|thik( hai)?|sahi( hai)?|(हाँ|हां|हा)( जी)?( कर दो| करो)?|जी (हाँ|हां)|ठीक है|कर दो|करो|सही है)\s*[.!।]*\s*$/i;

/** Whether a query is a free-text yes that may confirm: never over MCP, whose confirmations are explicit. */
export function isPlainYes(data: Pick<QueryRouted, 'channel' | 'query'>): boolean {
  return data.channel !== 'mcp' && PLAIN_YES.test(data.query);
}

/**
 * Whether a request may approve a write (and so, delivered again, find it under way): only an answer
 * to a confirmation card, a decision on an approval, or a plain yes approves one.
 */
export function mayApprove(
  data: Pick<QueryRouted, 'channel' | 'query' | 'mcqResponse' | 'approvalDecision'>,
): boolean {
  return data.mcqResponse !== undefined || data.approvalDecision !== undefined || isPlainYes(data);
}
