/** `quotient whatif POLICY --market TYPE=PRICE@TIME --trace FILE`: a market event's releases (docs/simulate.md "Market what-ifs"). */
import { fitTable, terminalWidth } from './fit-table.js';
import { QuotientError } from '../errors.js';
import { readBundles } from '../policy/parse/read-files.js';
import { answerMarketEvent, parseMarketEvent, type MarketAnswer } from '../simulate/market-event.js';
import { display, joinDisplay, type Display } from '../model/display-text.js';
import { EXIT } from './exit.js';
import { seedFlag } from './flags.js';
import { colour, printDocument, report, say, type Format } from './output.js';
import { clusterNodes, loadBundle, readMarket, readWorkload } from '../simulate/sim-inputs.js';
import { noteSnapshot } from './snapshot-note.js';
import { stderrSimLog } from './sim-log.js';

/** Answers the market event for the one policy `paths` name. */
export async function answerMarketFlag(paths: string[], value: string, trace: string | undefined, seedText: string, backend: 'wasm' | 'reference', format: Format): Promise<number> {
  const event = parseMarketEvent(value);
  if ('refused' in event)
    throw new QuotientError(
      event.pastLimit ? 'cli/out-of-range' : 'cli/bad-market',
      `--market: ${event.refused}`,
      'for example --market ecs.gn7i-1gpu=9.5@36h or --market lingjun.gu8-8gpu=inventory:1@30h',
    );
  if (!trace) throw new QuotientError('cli/no-workload', '--market needs the workload that runs the spot jobs', 'name the jobs file with --trace FILE');
  const bundles = readBundles(paths);
  if (bundles.length !== 1) throw new QuotientError('cli/several-policies', `${bundles.length} policies given; a market question is about one`, 'name one policy folder');
  const { policy, label } = loadBundle(bundles[0]!, stderrSimLog);
  noteSnapshot(label, policy);
  const seed = seedFlag(seedText);
  const workload = readWorkload(trace, policy, false, stderrSimLog);
  const market = readMarket(policy, seed, event.at + 86_400_000, stderrSimLog);
  const answer = await answerMarketEvent({ policy, label, nodes: clusterNodes(policy, label), workload, market }, { seed, backend }, event);
  if (format === 'table') say(renderMarketAnswer(answer));
  else printDocument(format, report('MarketWhatIfReport', answer));
  return workload.rejected.length > 0 ? EXIT.findings : EXIT.ok;
}

/** The answer for people. */
export function renderMarketAnswer(a: MarketAnswer): Display {
  const lines = [colour.bold(`${a.instanceType} at hour ${a.hour}: price ${a.price.before} → ${a.price.after}/h, inventory ${a.inventory.before} → ${a.inventory.after}`)];
  if (a.released.length === 0) lines.push(display`  no spot job is released`);
  else {
    lines.push(display`  ${a.released.length} spot job(s) released, ${a.lostGpuHours} GPU-hours of work lost:`);
    const rows = a.released.map((r) => [r.job, r.team, r.bid, r.cause, r.lostGpuHours, r.restarts ? 're-enters the bidding queue' : 'ends Preempted']);
    lines.push(fitTable(['job', 'team', 'bid /h', 'cause', 'lost GPU-h', 'then'], rows, terminalWidth()));
    for (const r of a.released) lines.push(display`  ${colour.dim('·')} ${r.job}: ${r.reason}`);
  }
  for (const p of a.protectedUntilHour) lines.push(display`  ${p.job} (bid ${p.bid}/h) is protected until hour ${p.hour}`);
  if (a.keepsRunning.length) lines.push(display`  keep running: ${a.keepsRunning.map((k) => `${k.job} (bid ${k.bid}/h)`).join(', ')}`);
  lines.push(colour.dim(`  assumes: ${a.assumptions.join('; ')}`));
  return joinDisplay(lines);
}
