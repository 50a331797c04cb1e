/**
 * Where the web app's built files are: `dist/web/` (the web app's build writes them
 * there; the package ships dist/). From the sources (tsx, vitest) the compiled copy in
 * dist/ is used. Until it is built, `GET /` is a placeholder page saying so.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of the built web app, or undefined when there is none with an index.html. */
export function webAppFolder(given?: string): string | undefined {
  const candidates = given !== undefined ? [given] : [fileURLToPath(new URL('../web/', import.meta.url)), fileURLToPath(new URL('../../dist/web/', import.meta.url))];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

/** The page `GET /` shows while the web app is not built: no script, no outside resource. */
export const PLACEHOLDER_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Quotient</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto; line-height: 1.5">
<h1>Quotient</h1>
<p>The web app is not built in this installation (its files go to <code>dist/web/</code>). The API answers:</p>
<ul>
<li><a href="/v1/status">/v1/status</a>, <a href="/v1/quotas">/v1/quotas</a>, <a href="/v1/nodes">/v1/nodes</a>, <a href="/v1/jobs">/v1/jobs</a></li>
<li><code>POST /v1/whatif</code> with <code>{"submit": JOB}</code></li>
<li><a href="/openapi.json">/openapi.json</a> describes every route; docs/serve.md explains them.</li>
</ul>
</body>
</html>
`;
