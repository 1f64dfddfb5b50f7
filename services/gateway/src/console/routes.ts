import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { HIDDEN } from '../plugins/openapi.ts';

const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

/** The browser modules the console imports, served from the installed packages (no build step). */
const VENDOR: Record<string, string> = {
  'marked.esm.js': import.meta.resolve('marked'),
  'purify.es.mjs': import.meta.resolve('dompurify'),
};

// Only this origin's scripts and styles; answers are sanitised too, this is the second fence.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Serves the web console (plain HTML, CSS and JS modules in `public/`) at `/`. */
export const consoleRoutes: FastifyPluginAsync = async (app) => {
  await app.register(fastifyStatic, {
    root: PUBLIC_DIR,
    wildcard: false,
    index: ['index.html'],
    setHeaders: (res) => {
      res.header('content-security-policy', CSP);
      res.header('x-content-type-options', 'nosniff');
    },
  });
  const vendor = new Map<string, Buffer>();
  for (const [name, url] of Object.entries(VENDOR)) vendor.set(name, await readFile(new URL(url)));
  app.get<{ Params: { file: string } }>('/vendor/:file', { schema: HIDDEN }, async (request, reply) => {
    const { file } = request.params;
    const body = vendor.get(file);
    if (!body) return reply.callNotFound();
    return reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(body);
  });
};
