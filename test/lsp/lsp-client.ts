/**
 * A JSON-RPC client for `quotient lsp`, as language servers are tested: it spawns the
 * built server (`node dist/cli/main.js lsp`), speaks LSP over its stdio with
 * vscode-jsonrpc, and keeps every diagnostics notification it receives. Used by the
 * tests in test/lsp/ and by bench/lsp.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import {
  CodeActionRequest,
  CodeLensRequest,
  CompletionRequest,
  DefinitionRequest,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentSymbolRequest,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ReferencesRequest,
  RenameRequest,
  ShutdownRequest,
  type Diagnostic,
  type InitializeResult,
  type Position,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** One diagnostics notification, with when it arrived (performance.now()). */
export interface Published extends PublishDiagnosticsParams {
  at: number;
}

export const uriOf = (path: string): string => pathToFileURL(resolve(path)).href;

export class LspClient {
  readonly published: Published[] = [];
  private readonly latest = new Map<string, Diagnostic[]>();
  private waiters: Array<() => void> = [];
  private readonly versions = new Map<string, number>();
  stderr = '';

  private constructor(
    readonly child: ChildProcess,
    readonly rpc: MessageConnection,
  ) {
    rpc.onNotification(PublishDiagnosticsNotification.type, (p) => {
      this.published.push({ ...p, at: performance.now() });
      this.latest.set(p.uri, p.diagnostics);
      for (const w of this.waiters.splice(0)) w();
    });
    // The server asks for lenses to be refreshed; an editor says yes.
    rpc.onRequest('workspace/codeLens/refresh', () => null);
  }

  /** Starts the server and initializes it with `workspace` as the workspace folder. */
  static async start(workspace: string, args: string[] = []): Promise<{ client: LspClient; init: InitializeResult }> {
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'lsp', '--stdio', ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
    });
    const rpc = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const client = new LspClient(child, rpc);
    child.stderr.on('data', (b: Buffer) => (client.stderr += b.toString()));
    rpc.listen();
    const init = await rpc.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: uriOf(workspace),
      workspaceFolders: [{ uri: uriOf(workspace), name: 'policies' }],
      capabilities: { workspace: { codeLens: { refreshSupport: true } }, textDocument: { publishDiagnostics: { relatedInformation: true } } },
    });
    await rpc.sendNotification(InitializedNotification.type, {});
    return { client, init };
  }

  async open(path: string, text: string): Promise<string> {
    const uri = uriOf(path);
    this.versions.set(uri, 1);
    await this.rpc.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    return uri;
  }

  /** Replaces the whole text of an open document. */
  async change(uri: string, text: string): Promise<void> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.rpc.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  /** The latest diagnostics published for a URI. */
  diagnostics(uri: string): Diagnostic[] | undefined {
    return this.latest.get(uri);
  }

  /** Waits until `ready()` holds after some notification (or now), failing after `ms`. */
  async until(ready: () => boolean, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (!ready()) {
      if (Date.now() > end) throw new Error(`timed out waiting for the server; its stderr: ${this.stderr}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 100);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  /** Waits for the next diagnostics notification on `uri` after the `count`th one received. */
  async nextOn(uri: string, after = this.published.length): Promise<Published> {
    await this.until(() => this.published.slice(after).some((p) => p.uri === uri));
    return this.published.slice(after).find((p) => p.uri === uri)!;
  }

  hover(uri: string, position: Position) {
    return this.rpc.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
  }
  completion(uri: string, position: Position) {
    return this.rpc.sendRequest(CompletionRequest.type, { textDocument: { uri }, position });
  }
  definition(uri: string, position: Position) {
    return this.rpc.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position });
  }
  references(uri: string, position: Position) {
    return this.rpc.sendRequest(ReferencesRequest.type, { textDocument: { uri }, position, context: { includeDeclaration: true } });
  }
  rename(uri: string, position: Position, newName: string) {
    return this.rpc.sendRequest(RenameRequest.type, { textDocument: { uri }, position, newName });
  }
  symbols(uri: string) {
    return this.rpc.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
  }
  codeActions(uri: string, diagnostics: Diagnostic[]) {
    const range = diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    return this.rpc.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range, context: { diagnostics } });
  }
  codeLens(uri: string) {
    return this.rpc.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
  }

  /** Shuts the server down as an editor does, and waits for it to exit. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((res) => this.child.once('exit', (code) => res(code)));
    try {
      await this.rpc.sendRequest(ShutdownRequest.type);
      await this.rpc.sendNotification(ExitNotification.type);
    } catch {
      this.child.kill();
    }
    const code = await exited;
    this.rpc.dispose();
    return code;
  }
}

/** The position of the `nth` occurrence (from 0) of `needle` in `text`, plus `shift` characters. */
export function positionOf(text: string, needle: string, nth = 0, shift = 0): Position {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`"${needle}" occurs fewer than ${nth + 1} times`);
  }
  at += shift;
  const before = text.slice(0, at);
  const line = before.split('\n').length - 1;
  return { line, character: at - (before.lastIndexOf('\n') + 1) };
}
