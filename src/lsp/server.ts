/**
 * `quotient lsp`: a language server over stdio for policy files. Diagnostics are
 * `quotient check`'s findings for the whole policy folder of the edited file, read from
 * the editor's unsaved buffers, published after each edit settles (debounced) for every
 * file of that policy; hover, completion, go to definition, references, rename, the
 * outline, quick fixes and a what-if lens read the same policy.
 *
 * A broken file never takes the server down: each request's failure is logged to the
 * editor and answered empty, and a policy that cannot be read is a diagnostic.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import {
  CodeActionKind,
  CodeLensRefreshRequest,
  createConnection,
  DiagnosticSeverity,
  ErrorCodes,
  ResponseError,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type Diagnostic,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { QuotientError } from '../errors.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { API_VERSION } from '../policy/validate/schema.js';
import { checkPolicy, type CheckedPolicy } from './check-policy.js';
import { quickFixes } from './code-actions.js';
import { whatIfLenses } from './code-lens.js';
import { completionsAt } from './completion.js';
import { diagnosticsByUri, uriOf } from './diagnostics.js';
import { hoverText } from './hover.js';
import { policyNameSites, type NameSite } from './name-sites.js';
import { definitions, documentSymbols, references, renameEdits, siteAt, type NavFile } from './navigation.js';
import { policyRootOf, readPolicyFiles } from './policy-folder.js';
import { cursorAt, parseYamlDocs } from './yaml-tree.js';

export interface ServerOptions {
  /** Quiet time after an edit before the policy is checked again (ms). */
  debounceMs: number;
}

/** One policy folder as last checked. */
interface Checked extends CheckedPolicy {
  base: string;
  files: InputFile[];
  /** The URIs diagnostics were published on, to clear those that have none now. */
  published: Set<string>;
}

/** True for a file the server reads: a YAML file on disk. */
function isPolicyUri(uri: string): boolean {
  return uri.startsWith('file:') && /\.ya?ml$/i.test(uri);
}

/** Starts the server on this process's stdin and stdout; it runs until the editor says exit. */
export function startLanguageServer(options: ServerOptions): Connection {
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  const documents = new TextDocuments(TextDocument);
  let workspaces: string[] = [];
  let lensRefresh = false;
  const checked = new Map<string, Checked>();
  const generation = new Map<string, number>();
  const timers = new Map<string, NodeJS.Timeout>();
  const queue = new Map<string, Promise<void>>();

  const log = (what: string, e: unknown): void => {
    const text = e instanceof QuotientError ? `${e.code}: ${e.message}` : e instanceof Error ? (e.stack ?? e.message) : String(e);
    // The editor's log, over JSON-RPC (window/logMessage), not the process's stderr.
    const editorLog = connection.console;
    editorLog.error(`quotient lsp: ${what}: ${text}`);
  };
  /** A handler that answers `fallback` instead of failing: one bad file or request never stops the server. */
  const safe =
    <P, R>(what: string, fallback: R, handler: (p: P) => R | Promise<R>) =>
    async (p: P): Promise<R> => {
      try {
        return await handler(p);
      } catch (e) {
        log(what, e);
        return fallback;
      }
    };

  /** The editor's open policy files: absolute path → text. */
  const overlay = (): Map<string, string> => new Map(documents.all().flatMap((d) => (isPolicyUri(d.uri) ? [[fileURLToPath(d.uri), d.getText()] as const] : [])));
  const rootOf = (uri: string): string => policyRootOf(fileURLToPath(uri), workspaces);

  /** Checks a policy folder and publishes its diagnostics, unless an edit came while it ran (then the newer check publishes). */
  const checkFolder = async (root: string): Promise<void> => {
    const gen = generation.get(root) ?? 0;
    let result: Checked;
    try {
      const read = readPolicyFiles(root, overlay());
      const policy = await checkPolicy(read.files, !read.edited);
      result = { ...policy, base: read.base, files: read.files, published: new Set() };
    } catch (e) {
      if (!(e instanceof QuotientError)) log(`checking ${root}`, e);
      // The folder could not be read (a vanished file, a link loop): said on each open file of it.
      const message = e instanceof QuotientError ? `${e.message}${e.hint ? `\nhint: ${e.hint}` : ''}` : `the policy could not be checked: ${String(e)}`;
      const code = e instanceof QuotientError ? e.code : 'lsp/internal';
      const diag: Diagnostic = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: DiagnosticSeverity.Error, code, source: 'quotient', message };
      if ((generation.get(root) ?? 0) !== gen) return;
      for (const d of documents.all()) if (isPolicyUri(d.uri) && rootOf(d.uri) === root) void connection.sendDiagnostics({ uri: d.uri, diagnostics: [diag] });
      return;
    }
    if ((generation.get(root) ?? 0) !== gen) return;
    const before = checked.get(root);
    const byUri = diagnosticsByUri(result.findings, result.files, result.base);
    for (const [uri, diagnostics] of byUri) {
      result.published.add(uri);
      void connection.sendDiagnostics({ uri, diagnostics });
    }
    for (const uri of before?.published ?? []) if (!byUri.has(uri)) void connection.sendDiagnostics({ uri, diagnostics: [] });
    checked.set(root, result);
    // The what-if lenses answer against the policy just checked: the editor asks for them again.
    if (lensRefresh) void connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
  };

  /** Checks the folder after `delay` ms without another edit to it; checks of one folder run one after another. */
  const schedule = (root: string, delay: number): void => {
    generation.set(root, (generation.get(root) ?? 0) + 1);
    clearTimeout(timers.get(root));
    timers.set(
      root,
      setTimeout(() => {
        timers.delete(root);
        const next = (queue.get(root) ?? Promise.resolve()).then(() => checkFolder(root)).catch((e: unknown) => log(`checking ${root}`, e));
        queue.set(root, next);
      }, delay),
    );
  };

  /** The policy's files now: as last checked, with the editor's buffers over them. */
  const filesNow = (root: string): { base: string; files: InputFile[]; check?: Checked } => {
    const last = checked.get(root);
    const open = overlay();
    if (!last) {
      const read = readPolicyFiles(root, open);
      return { base: read.base, files: read.files };
    }
    const files = last.files.map((f) => {
      const text = open.get(resolve(last.base, f.path));
      return text === undefined || text === f.text ? f : { path: f.path, text };
    });
    return { base: last.base, files, check: last };
  };

  /** The file's display path in its policy, the policy's name sites and its files for navigation. */
  const navigate = (uri: string, declarationsOnly = false) => {
    const now = filesNow(rootOf(uri));
    const path = fileURLToPath(uri);
    const file = now.files.find((f) => resolve(now.base, f.path) === path);
    const sites: NameSite[] = policyNameSites(now.files, declarationsOnly);
    const nav = new Map<string, NavFile>(
      now.files.map((f) => {
        const u = uriOf(now.base, f.path);
        return [f.path, { uri: u, doc: documents.get(u) ?? TextDocument.create(u, 'yaml', 0, f.text) }];
      }),
    );
    return { ...now, file, sites, nav };
  };

  connection.onInitialize((params): InitializeResult => {
    const folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    lensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
    workspaces = folders.filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u));
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        completionProvider: { triggerCharacters: [' ', ':', '[', ','] },
        definitionProvider: true,
        referencesProvider: true,
        documentSymbolProvider: true,
        renameProvider: { prepareProvider: true },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        codeLensProvider: { resolveProvider: false },
      },
      serverInfo: { name: 'quotient', version: '0.1.0' },
    };
  });

  /**
   * A YAML file the server checks: one that holds a policy document, or one of a folder it
   * already checks (a file being written there). Other YAML (a CI file, a chart) the
   * editor may send is left alone: no "the policy has no QuotaTree" on a docker-compose.yml.
   */
  const isPolicyDocument = (d: TextDocument): boolean => isPolicyUri(d.uri) && (d.getText().includes(API_VERSION) || checked.has(rootOf(d.uri)));
  /** Runs a document event's work, logging instead of throwing (a URI the server cannot map to a path, say). */
  const guarded = (what: string, work: () => void): void => {
    try {
      work();
    } catch (e) {
      log(what, e);
    }
  };
  documents.onDidOpen((e) =>
    guarded('didOpen', () => {
      if (isPolicyDocument(e.document)) schedule(rootOf(e.document.uri), 0);
    }),
  );
  documents.onDidChangeContent((e) =>
    guarded('didChange', () => {
      if (isPolicyDocument(e.document)) schedule(rootOf(e.document.uri), options.debounceMs);
    }),
  );
  // A closed file is read from disk again: its unsaved text no longer counts.
  documents.onDidClose((e) =>
    guarded('didClose', () => {
      if (isPolicyUri(e.document.uri) && checked.has(rootOf(e.document.uri))) schedule(rootOf(e.document.uri), options.debounceMs);
    }),
  );

  connection.onHover(
    safe('hover', null, (p) => {
      const doc = documents.get(p.textDocument.uri);
      if (!doc || !isPolicyUri(doc.uri)) return null;
      const cursor = cursorAt(doc.getText(), doc.offsetAt(p.position));
      if (!cursor) return null;
      const text = hoverText(cursor, checked.get(rootOf(doc.uri))?.session);
      return text ? { contents: { kind: 'markdown', value: text }, range: { start: doc.positionAt(cursor.start), end: doc.positionAt(cursor.end) } } : null;
    }),
  );

  connection.onCompletion(
    safe('completion', [], (p) => {
      const doc = documents.get(p.textDocument.uri);
      if (!doc || !isPolicyUri(doc.uri)) return [];
      const cursor = cursorAt(doc.getText(), doc.offsetAt(p.position));
      if (!cursor) return [];
      return completionsAt(cursor, navigate(doc.uri, true).sites);
    }),
  );

  /** The name site under a position, with the policy around it. */
  const siteUnder = (uri: string, position: { line: number; character: number }) => {
    const n = navigate(uri);
    const doc = n.file ? n.nav.get(n.file.path)?.doc : undefined;
    const site = n.file && doc ? siteAt(n.sites, n.file.path, doc.offsetAt(position)) : undefined;
    return { ...n, site };
  };

  connection.onDefinition(
    safe('definition', [], (p) => {
      const n = siteUnder(p.textDocument.uri, p.position);
      return n.site ? definitions(n.site, n.sites, n.nav) : [];
    }),
  );
  connection.onReferences(
    safe('references', [], (p) => {
      const n = siteUnder(p.textDocument.uri, p.position);
      return n.site ? references(n.site, n.sites, n.nav, p.context.includeDeclaration) : [];
    }),
  );
  connection.onPrepareRename(
    safe('prepareRename', null, (p) => {
      const n = siteUnder(p.textDocument.uri, p.position);
      if (!n.site || n.site.kind !== 'quota' || !n.file) return null;
      const doc = n.nav.get(n.file.path)?.doc;
      return doc ? { range: { start: doc.positionAt(n.site.start), end: doc.positionAt(n.site.end) }, placeholder: n.site.name } : null;
    }),
  );
  connection.onRenameRequest(
    safe('rename', null, (p) => {
      const n = siteUnder(p.textDocument.uri, p.position);
      // Quotas only: the names a policy's other documents and a cluster's jobs refer to most.
      if (!n.site || n.site.kind !== 'quota') return null;
      if (!/^[^\s:#{}[\],'"]+$/.test(p.newName))
        return new ResponseError(ErrorCodes.InvalidParams, `lsp/bad-name: "${p.newName}" is not a quota name (a quota name has no spaces, quotes or YAML punctuation)`);
      return { changes: renameEdits(n.site, p.newName, n.sites, n.nav) };
    }),
  );
  connection.onDocumentSymbol(
    safe('documentSymbol', [], (p) => {
      const doc = documents.get(p.textDocument.uri);
      return doc && isPolicyUri(doc.uri) ? documentSymbols(parseYamlDocs(doc.getText()), doc) : [];
    }),
  );
  connection.onCodeAction(
    safe('codeAction', [], (p) => {
      const doc = documents.get(p.textDocument.uri);
      return doc ? quickFixes(doc, p.context.diagnostics) : [];
    }),
  );
  connection.onCodeLens(
    safe('codeLens', [], async (p) => {
      const doc = documents.get(p.textDocument.uri);
      if (!doc || !isPolicyUri(doc.uri)) return [];
      return whatIfLenses(parseYamlDocs(doc.getText()), doc, checked.get(rootOf(doc.uri))?.session);
    }),
  );

  documents.listen(connection);
  connection.listen();
  return connection;
}

/** The URI of a path (tests and the bench name files by path). */
export function fileUri(path: string): string {
  return pathToFileURL(resolve(path)).href;
}
