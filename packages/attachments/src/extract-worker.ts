// Runs one extraction in a worker thread (see extractInWorker).
import { parentPort, workerData } from 'node:worker_threads';
import { extract } from './extract.ts';

const { bytes, mimeType, limits } = workerData as {
  bytes: Uint8Array;
  mimeType: Parameters<typeof extract>[1];
  limits: Parameters<typeof extract>[2];
};
parentPort?.postMessage(await extract(bytes, mimeType, limits));
