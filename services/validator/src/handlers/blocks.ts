import type { AnswerBlocksReply, AnswerBlocksRequest, Message } from '@munim/contracts';
import { repairBlocks } from '../blocks.ts';
import type { ValidatorContext } from '../context.ts';
import { CorrectionTokens } from '../correct.ts';

/**
 * The handler of `answerBlocks`: the blocks of an answer repaired, or corrected once by the model
 * within the request's correction tokens, whose use is reported back.
 */
export function blocksHandler(ctx: ValidatorContext) {
  const { log, corrector } = ctx;
  return async (message: Message<AnswerBlocksRequest>): Promise<AnswerBlocksReply> => {
    const tokens = new CorrectionTokens(message.data.correctionTokens);
    const out = await repairBlocks(message.data.text, { corrector, tokens });
    if (out.guardrails.length > 0)
      log.info({ requestId: message.requestId, blocks: out.blocks }, 'answer blocks corrected');
    return tokens.usage ? { ...out, correctionUsage: tokens.usage } : out;
  };
}
