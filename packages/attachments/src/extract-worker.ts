// Runs one extraction in a worker thread (see extractInWorker).
import { parentPort, workerData } from 'node:worker_threads';
import { ArchiveRefusedError } from './errors.ts';
import { extract, type WorkerReply } from './extract.ts';
import { isZip, verifyZip, type ZipLimits } from './zip-guard.ts';

const { bytes, mimeType, limits, zipLimits } = workerData as {
  bytes: Uint8Array;
  mimeType: Parameters<typeof extract>[1];
  limits: Parameters<typeof extract>[2];
  zipLimits: ZipLimits;
};

async function run(): Promise<WorkerReply> {
  if (isZip(bytes)) {
    try {
      await verifyZip(bytes, zipLimits);
    } catch (error) {
      if (!(error instanceof ArchiveRefusedError)) throw error;
      return { refused: { reason: error.reason, message: error.message } };
    }
  }
  return extract(bytes, mimeType, limits);
}

parentPort?.postMessage(await run());
