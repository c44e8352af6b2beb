/**
 * Where a `kindex` command prints and how it reports failure: `log` for progress and errors
 * (stderr), `write` for output a user pipes on (stdout: generated TypeScript, help), `exit` for a
 * command that ran but failed (`--check` found stale files: 1). Tests pass their own.
 */
export interface CliIo {
  readonly log: (line: string) => void;
  readonly write: (text: string) => void;
  readonly exit: (code: number) => void;
}
