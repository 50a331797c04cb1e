/**
 * Where a piece of the model came from. Every quota, clause, node and job carries one so
 * that answers can cite the policy line ("Quota1/childPreemption at teams.yaml:9:7").
 */
export interface Source {
  file: string;
  line: number;
  column: number;
  /** Field path inside the YAML document, e.g. `spec.quotas[0].childPreemption`. */
  path: string;
}

/**
 * True for the `file` of a value given on the command line (`--set`, `--submit`: named
 * after its flag). Quotient builds a document from the flag to read it, but no line or
 * column of that document is anything the user wrote: such a Source or finding has line
 * and column 0 (docs/cli.md, "JSON output").
 */
export function isFlagFile(file: string): boolean {
  return file.startsWith('--');
}

/**
 * `file:line:col`; for a value given on the command line (`--set`, `--submit`: files
 * named after their flag), the flag and the key, e.g. `--set Quota1.1`: the line of a
 * document the user never saw would mean nothing to them.
 */
export function sourceText(src: Source): string {
  if (isFlagFile(src.file)) {
    const key = src.path.replace(/^spec\.[^.[]+\.?/, '');
    return key ? `${src.file} ${key}` : src.file;
  }
  return `${src.file}:${src.line}:${src.column}`;
}

/**
 * A plain copy of a Source, with line and column read now. Sources made while loading
 * resolve their position on first read (policy/parse/source-doc.ts) and hold the document
 * they read it from: copy one this way before it crosses a thread or a process.
 */
export function plainSource(src: Source): Source {
  return { file: src.file, line: src.line, column: src.column, path: src.path };
}
