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

/** `file:line:col`. */
export function sourceText(src: Source): string {
  return `${src.file}:${src.line}:${src.column}`;
}
