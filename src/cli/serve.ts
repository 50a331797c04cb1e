/** `quotient serve PATHS... --listen HOST:PORT --auth MODE`: the policy as an HTTP service (docs/serve.md). */
import type { Command } from 'commander';
import { QuotientError } from '../errors.js';
import { parseDuration } from '../model/quantity.js';
import { kernelFlag, kernelOption } from './flags.js';
import { log } from './output.js';
import { display } from '../model/display-text.js';

interface ServeFlags {
  listen: string;
  auth?: string;
  admin?: string[];
  snapshotCommand?: string;
  every: string;
  snapshotTimeout: string;
  snapshotMaxBytes: string;
  poll: string;
  bodyLimit: string;
  requestTimeout: string;
  answerTimeout: string;
  drainDelay: string;
  web?: string;
  logLevel: string;
  kernel?: string;
}

/** `HOST:PORT` (`[::1]:8080` for IPv6). */
export function listenFlag(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new QuotientError('cli/bad-listen', `--listen ${value} is not HOST:PORT`, 'e.g. --listen 127.0.0.1:8080, --listen 0.0.0.0:8080 (behind a proxy), --listen [::1]:8080');
  return { host: (m[1] ?? m[2])!, port };
}

/** A duration flag (`30s`, `2m`; `0` where allowed) in ms. */
function durationFlag(flag: string, value: string, allowZero = false): number {
  if (allowZero && /^0+[a-z]*$/.test(value.trim())) return 0;
  const ms = parseDuration(value);
  if (ms === undefined) throw new QuotientError('cli/bad-duration', `${flag} ${value} is not a duration`, `e.g. ${flag} 30s, ${flag} 2m`);
  return ms;
}

/** A size flag (`256k`, `1m`, bytes) in bytes. */
function bytesFlag(flag: string, value: string): number {
  const m = /^(\d+)([km]?)i?b?$/i.exec(value.trim());
  const n = m ? Number(m[1]) * ({ '': 1, k: 1024, m: 1024 * 1024 } as Record<string, number>)[m[2]!.toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new QuotientError('cli/bad-size', `${flag} ${value} is not a size`, `e.g. ${flag} 256k, ${flag} 1m`);
  return n;
}

/** `--log-level`. */
function logLevelFlag(value: string): string {
  if (['info', 'warn', 'error', 'silent', 'debug'].includes(value)) return value;
  throw new QuotientError('cli/bad-log-level', `--log-level ${value} is not a level`, 'use info, warn, error or silent');
}

/** Registers the command. */
export function registerServe(program: Command): void {
  const cmd = program
    .command('serve')
    .description('serve one policy over HTTP, live: what-if answers, the quota tree, nodes and jobs as each caller may see them, metrics, and the web app')
    .argument('<paths...>', "the policy: a folder of its YAML files, or its files (a Cluster among them replaces the folder's)")
    .option('--listen <host:port>', 'where to listen', '127.0.0.1:8080')
    .option('--auth <mode>', 'header:NAME (a trusted proxy sets the user, e.g. header:X-Remote-User), tokens:FILE (SHA-256-HEX USER lines), or none (loopback only: everyone is an administrator)')
    .option('--admin <user...>', 'users who see everything (administrators)')
    .option('--snapshot-command <command>', "the cluster snapshot from a command's output (run with sh -c): kubectl JSON, e.g. 'kubectl get nodes,pods -A -o json', or a Cluster document")
    .option('--every <duration>', 'run the snapshot command this often', '30s')
    .option('--snapshot-timeout <duration>', 'stop a snapshot command running longer than this', '60s')
    .option('--snapshot-max-bytes <size>', 'the most output read from the snapshot command (a run printing more is stopped and fails)', '64m')
    .option('--poll <duration>', 'look at the files for changes this often (besides file-system events)', '2s')
    .option('--body-limit <size>', 'the largest request body (413 over it)', '256k')
    .option('--request-timeout <duration>', 'cut a client that has not sent its whole request in this time (408)', '10s')
    .option('--answer-timeout <duration>', 'answer 504 when an answer takes longer than this', '30s')
    .option('--drain-delay <duration>', 'after SIGTERM, how long /readyz fails before the server stops taking requests', '0')
    .option('--web <dir>', "the built web app's folder (default dist/web)")
    .option('--log-level <level>', 'info (a JSON line per request on stderr), warn, error or silent', 'info')
    .addHelpText(
      'after',
      "\nExamples:\n  quotient serve policies/inference-preempts-training --listen 127.0.0.1:8080 --auth header:X-Remote-User\n  quotient serve policy/ --listen 0.0.0.0:8080 --auth tokens:/etc/quotient/tokens --snapshot-command 'kubectl get nodes,pods -A -o json' --every 30s\n\nExit codes: 0 stopped by SIGTERM or SIGINT, 2 could not start (a bad flag, paths that are not one policy, --auth none off loopback, the port taken).",
    )
    .action(async (paths: string[], flags: ServeFlags) => {
      if (flags.auth === undefined)
        throw new QuotientError(
          'cli/missing-auth',
          'quotient serve needs --auth',
          'choose --auth header:X-Remote-User (behind an authenticating proxy), --auth tokens:FILE, or --auth none (loopback only)',
        );
      const { host, port } = listenFlag(flags.listen);
      // Loaded only here: the server's libraries (Fastify, pino, prom-client) would slow every other command's start.
      const { parseAuth } = await import('../serve/auth.js');
      const { SERVE_DEFAULTS, startServer } = await import('../serve/server.js');
      const server = await startServer({
        paths,
        host,
        port,
        auth: parseAuth(flags.auth),
        admins: flags.admin ?? [],
        backend: kernelFlag(flags.kernel),
        pollMs: durationFlag('--poll', flags.poll),
        ...(flags.snapshotCommand !== undefined
          ? {
              snapshot: {
                command: flags.snapshotCommand,
                everyMs: durationFlag('--every', flags.every),
                timeoutMs: durationFlag('--snapshot-timeout', flags.snapshotTimeout),
                maxBytes: bytesFlag('--snapshot-max-bytes', flags.snapshotMaxBytes),
              },
            }
          : {}),
        bodyLimit: bytesFlag('--body-limit', flags.bodyLimit),
        requestTimeoutMs: durationFlag('--request-timeout', flags.requestTimeout),
        headersTimeoutMs: Math.min(SERVE_DEFAULTS.headersTimeoutMs, durationFlag('--request-timeout', flags.requestTimeout)),
        answerTimeoutMs: durationFlag('--answer-timeout', flags.answerTimeout),
        drainDelayMs: durationFlag('--drain-delay', flags.drainDelay, true),
        ...(flags.web !== undefined ? { webRoot: flags.web } : {}),
        logLevel: logLevelFlag(flags.logLevel),
      });
      log(display`quotient: serving ${server.live.label ?? paths.join(' ')} at ${server.url}`);
      // Stop on SIGTERM (Kubernetes) or SIGINT (Ctrl-C): not ready, finish what is in flight, exit 0.
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          void server.close().then(resolve, resolve);
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      process.exitCode = 0;
    });
  kernelOption(cmd);
}
