/**
 * Reads a fetch Response body as Server-Sent Events and calls onEvent({ id, event, data }) for
 * each message (comments such as heartbeats are skipped). Resolves when the stream ends.
 */
export async function readEvents(response, onEvent) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message = { id: undefined, event: 'message', data: '' };
      const data = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(text);
        else if (field === 'event') message.event = text;
        else if (field === 'id') message.id = text;
      }
      if (data.length > 0) {
        message.data = JSON.parse(data.join('\n'));
        onEvent(message);
      }
      end = buffer.indexOf('\n\n');
    }
  }
}
