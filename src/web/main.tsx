/** The web app's entry: esbuild bundles this file (scripts/build-web.mjs) into dist/web/app.js. */
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) render(<App />, root);
