// A minimal VS Code extension for Quotient policy files: it starts `quotient lsp` (the
// command in the `quotient.command` setting) once a YAML file holding a policy document
// (`apiVersion: quotient.dev/v1`) is open, and hands it the YAML files of the workspace.
// The server itself leaves YAML files that are not policies alone. Plain CommonJS: no
// build step; `npm install` here fetches vscode-languageclient (docs/editor.md).
'use strict';
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

const API_VERSION = /^apiVersion:\s*["']?quotient\.dev\/v1["']?\s*$/m;
let client;

function isPolicy(document) {
  return document.uri.scheme === 'file' && document.languageId === 'yaml' && API_VERSION.test(document.getText());
}

async function start(context) {
  if (client) return;
  const [command, ...args] = vscode.workspace.getConfiguration('quotient').get('command');
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const server = { command, args, transport: TransportKind.stdio, options: { cwd: folder, shell: process.platform === 'win32' } };
  client = new LanguageClient('quotient', 'Quotient', { run: server, debug: server }, { documentSelector: [{ scheme: 'file', language: 'yaml' }] });
  context.subscriptions.push(client);
  await client.start();
}

function activate(context) {
  const maybeStart = (document) => {
    if (!client && isPolicy(document)) start(context).catch((e) => vscode.window.showErrorMessage(`Quotient: could not start \`quotient lsp\`: ${e.message}`));
  };
  vscode.workspace.textDocuments.forEach(maybeStart);
  context.subscriptions.push(vscode.workspace.onDidOpenTextDocument(maybeStart));
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
