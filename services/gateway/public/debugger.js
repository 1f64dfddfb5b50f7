const LABELS = {
  connected: 'Connected',
  understanding_started: 'Understanding the question',
  route_started: 'Routing',
  route_classified: 'Route classified',
  tools_filtered: 'Tools filtered',
  intent_detecting: 'Matching intents',
  intent_detected: 'Intent detected',
  entities_extracted: 'Entities extracted',
  pipeline_planned: 'Pipeline planned',
  pipeline_executing: 'Pipeline step',
  enrichments_planned: 'Enrichments planned',
  enrichments_applying: 'Applying enrichments',
  executing_tool: 'Calling tool',
  tool_result: 'Tool result',
  mode_switch: 'Mode switch',
  write_validation: 'Write validation',
  tool_retry: 'Tool retry',
  mcq: 'Confirmation asked',
  confirmation: 'Confirmation',
  response_generating: 'Writing the answer',
  response_chunk: 'Answer text',
  complete: 'Complete',
  error: 'Error',
};

/** What a tool returned: its record count, and the result itself when it was streamed (debug). */
function toolOutcome(p) {
  const count =
    typeof p.recordCount === 'number' ? `${p.recordCount} record${p.recordCount === 1 ? '' : 's'}` : '';
  const truncated = p.truncated ? ' (truncated)' : '';
  return p.result === undefined ? `${count}${truncated}` : `${count}${truncated} ${short(p.result)}`.trim();
}

function short(value, max = 160) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text && text.length > max ? `${text.slice(0, max)}…` : (text ?? '');
}

/** Status and one-line detail of an event, as the pipeline debugger shows it. */
export function describeStep(type, p) {
  switch (type) {
    case 'route_classified':
      return { status: 'pass', detail: `path ${p.path} · ${p.category} · confidence ${p.confidence}` };
    case 'tools_filtered':
      return { status: 'info', detail: `${p.count} tools · ${p.groups.join(', ')}` };
    case 'intent_detected':
      return {
        status: p.intent ? 'pass' : 'info',
        detail: p.intent ? `${p.intent.name ?? p.intent.id} (${p.confidence})` : 'no intent matched',
      };
    case 'executing_tool':
      return { status: 'info', detail: `${p.tool} ${short(p.args ?? {})}` };
    case 'tool_result':
      return p.success
        ? { status: 'pass', detail: `${p.tool} ✓ ${toolOutcome(p)}`, ms: p.duration_ms }
        : { status: 'fail', detail: `${p.tool} ✗ ${p.error ?? ''}`, ms: p.duration_ms };
    case 'write_validation':
      return {
        status: p.status === 'blocked' ? 'warn' : 'pass',
        detail:
          `${p.tool}: ${p.status.toUpperCase()}` +
          (p.missing_fields?.length ? ` · missing ${p.missing_fields.join(', ')}` : '') +
          (p.fields_validated?.length ? ` · fields ${p.fields_validated.join(', ')}` : '') +
          (p.message ? ` · ${p.message}` : ''),
        ms: p.duration_ms,
      };
    case 'tool_retry':
      return { status: 'warn', detail: `${p.tool} attempt ${p.attempt}: ${p.reason}` };
    case 'mcq':
      return { status: 'warn', detail: `${p.pending_tool} · tier ${p.tier} · ${p.question}` };
    case 'confirmation':
      return {
        status: p.step === 'rejected' || p.step === 'expired' ? 'fail' : 'info',
        detail: `${p.tool}: ${p.step}`,
      };
    case 'response_chunk':
      return { status: 'info', detail: short(p.text, 80) };
    case 'complete':
      return {
        status: 'pass',
        detail: `${p.status} · ${p.llmModel ?? ''} · ${p.iterationCount ?? 0} iterations`,
      };
    case 'error':
      return { status: 'fail', detail: `${p.code}: ${p.message}` };
    case 'connected':
      return { status: 'pass', detail: `request ${p.requestId}` };
    default:
      return { status: 'info', detail: short(p) };
  }
}

const STATUS_TEXT = { pass: '✓ passed', warn: '! attention', fail: '✗ failed', info: '· info' };

/** A pipeline debugger: one step card per event, with status, detail and duration. */
export class PipelineDebugger {
  constructor(panel, list, title) {
    this.panel = panel;
    this.list = list;
    this.title = title;
    this.requestId = null;
    this.last = null;
  }

  /** Starts showing a request (clears the cards). */
  show(requestId) {
    this.requestId = requestId;
    this.last = null;
    this.list.replaceChildren();
    this.title.textContent = requestId ? requestId.slice(0, 8) : '';
    this.panel.hidden = false;
    this.panel.parentElement.classList.add('debugging');
  }

  hide() {
    this.panel.hidden = true;
    this.panel.parentElement.classList.remove('debugging');
    this.requestId = null;
  }

  /**
   * Adds the card of one event. `at` is when it arrived live, for the time since the step before;
   * a replayed event (at null) shows only the duration its payload reports.
   */
  add(type, payload, at = performance.now()) {
    const { status, detail, ms } = describeStep(type, payload ?? {});
    const elapsed = ms ?? (at === null ? null : this.last === null ? 0 : Math.round(at - this.last));
    if (at !== null) this.last = at;
    const item = document.createElement('li');
    item.className = `step ${status}`;
    item.dataset.type = type;
    const head = document.createElement('header');
    const name = document.createElement('span');
    name.textContent = `${this.list.children.length + 1}. ${LABELS[type] ?? type}`;
    const state = document.createElement('span');
    state.className = 'status';
    state.textContent = STATUS_TEXT[status];
    head.append(name, state);
    const body = document.createElement('p');
    body.className = 'detail';
    body.textContent = detail;
    const time = document.createElement('p');
    time.className = 'detail duration';
    time.textContent = elapsed === null ? 'Duration: —' : `Duration: ${elapsed.toLocaleString()} ms`;
    item.append(head, body, time);
    this.list.append(item);
  }
}
