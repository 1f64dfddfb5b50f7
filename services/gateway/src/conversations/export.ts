import type { Conversation } from '@munim/contracts';
import type { Tenant } from '../auth.ts';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const ROLE_LABEL: Record<string, string> = {
  user: 'You',
  assistant: 'munim',
  system: 'System',
  tool: 'Tool',
};

const STYLE = `
  :root { color-scheme: light; }
  body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2430; margin: 2rem auto; max-width: 52rem; padding: 0 1rem; }
  header { border-bottom: 2px solid #1d2430; margin-bottom: 1.5rem; padding-bottom: .75rem; }
  h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0 0; font-size: .9rem; }
  dt { color: #5a6475; } dd { margin: 0; }
  .msg { border: 1px solid #d6dbe3; border-radius: 6px; padding: .6rem .9rem; margin: 0 0 .8rem; break-inside: avoid; }
  .msg.user { background: #f3f6fb; } .msg.assistant { background: #fff; }
  .who { font-weight: 600; font-size: .85rem; color: #394357; display: flex; justify-content: space-between; }
  .who time { font-weight: 400; color: #5a6475; }
  .text { white-space: pre-wrap; overflow-wrap: anywhere; margin-top: .3rem; }
  footer { margin-top: 2rem; font-size: .8rem; color: #5a6475; }
  @media print { body { margin: 0; max-width: none; } .msg { border-color: #999; } }
`;

/**
 * A conversation as a styled, print-friendly HTML document: chat display id,
 * name, message count, entity, timestamps and the full message history. All text is escaped.
 */
export function renderExport(conversation: Conversation, tenant: Tenant, exportedAt: Date): string {
  const title = conversation.name ?? 'Untitled chat';
  const messages = conversation.messages
    .map((message) => {
      const when = message.ts
        ? `<time datetime="${escapeHtml(message.ts)}">${escapeHtml(message.ts)}</time>`
        : '';
      return `<article class="msg ${escapeHtml(message.role)}"><div class="who"><span>${escapeHtml(
        ROLE_LABEL[message.role] ?? message.role,
      )}</span>${when}</div><div class="text">${escapeHtml(message.content)}</div></article>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(conversation.displayId)} ${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(conversation.displayId)} · ${escapeHtml(title)}</h1>
<dl>
<dt>Messages</dt><dd>${conversation.messageCount}</dd>
<dt>Entity</dt><dd>${escapeHtml(tenant.entityId)}</dd>
<dt>Organisation</dt><dd>${escapeHtml(tenant.orgId)}</dd>
<dt>Started</dt><dd><time datetime="${conversation.createdAt}">${conversation.createdAt}</time></dd>
<dt>Last message</dt><dd><time datetime="${conversation.updatedAt}">${conversation.updatedAt}</time></dd>
</dl>
</header>
<main>
${messages || '<p>No messages.</p>'}
</main>
<footer>Exported by munim on <time datetime="${exportedAt.toISOString()}">${exportedAt.toISOString()}</time>.</footer>
</body>
</html>
`;
}
