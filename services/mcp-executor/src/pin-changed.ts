import type { ToolPinChanged } from '@munim/contracts';
import type { Logger } from '@munim/kit';
import type { ServerPool } from './pool.ts';

/**
 * Handles `toolPinChanged`: an operator's decision on a changed tool applies at once, the tools
 * reloaded (the periodic refresh catches a lost notice).
 */
export function pinChangedHandler(
  pool: ServerPool,
  log: Logger,
): (message: { data: ToolPinChanged }) => void {
  return (message) => {
    log.info({ ...message.data }, 'tool pin decided; reloading the tools');
    void pool.refresh(`tool change ${message.data.reason}`);
  };
}
