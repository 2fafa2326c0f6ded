/**
 * The tables of bench/README.md, built from results files: each sits between `<!-- results:<name> -->` and
 * `<!-- /results:<name> -->` in the README, and `yarn bench:readme` (bench/readme.ts) rewrites them from
 * bench/results/. The smoke run renders them from its own results, so a field they read cannot go missing.
 */

import { twoReplicasRows } from './twoReplicasTable';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Results = any;

function table(header: string[], rows: Array<Array<string | number>>) {
  const cells = [header, ...rows.map(r => r.map(String))];
  const widths = header.map((_, i) =>
    Math.max(3, ...cells.map(row => row[i].length)),
  );
  const line = (row: string[]) =>
    `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(header),
    line(widths.map(w => '-'.repeat(w))),
    ...rows.map(r => line(r.map(String))),
  ].join('\n');
}

function need(value: unknown, what: string): any {
  if (value === undefined || value === null) {
    throw new Error(`the results have no ${what}`);
  }
  return value;
}

const n = (value: number, digits = 0) =>
  need(value, 'number').toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
const met = (ok: boolean) => (ok ? 'met' : '**missed**');

function domainCore(r: Results): Record<string, string> {
  const quote = need(r.quote, 'quote');
  const planner: Results[] = need(r.planner, 'planner');
  return {
    'domain-core-quote': table(
      ['call (in process)', 'p50 µs', 'p99 µs', 'max µs'],
      [
        ['trivial endpoint (JSON of a field)', quote.baseline],
        ['quoteService', quote.quote],
        ['quoteService + JSON', quote.quoteAndJson],
      ].map(([call, l]: any) => [
        call,
        n(l.p50Micros, 1),
        n(l.p99Micros, 1),
        n(l.maxMicros, 1),
      ]),
    ),
    'domain-core-planner': table(
      [
        'mix',
        'services',
        'replicas',
        'unplaced',
        'GPUs',
        'lower bound',
        'ratio',
        'worst pool',
        'GPUs saved',
        'options ms',
        'pack ms',
        'total ms',
        'CPU ms',
      ],
      planner.map(p => [
        p.mix,
        n(p.services),
        n(p.replicas),
        n(p.unplaced),
        n(p.gpusUsed),
        n(p.lowerBound),
        n(p.ratio, 3),
        p.worstPool ? n(p.worstPool.ratio, 3) : '-',
        `${n(p.gpusSaved)} (${p.savedPercent}%)`,
        n(p.optionsMillis, 1),
        n(p.packMillis, 1),
        n(p.totalMillis, 1),
        n(p.cpuMillis, 1),
      ]),
    ),
  };
}

function http(r: Results): Record<string, string> {
  const empty = need(r.latency, 'latency');
  const stored = need(r.latencyWithServicesStored, 'latencyWithServicesStored');
  const creations: Results[] = need(r.creation, 'creation');
  const latencyRow = (what: string, l: Results) => [
    what,
    `${l.trivial.p50Ms} / ${l.trivial.p99Ms}`,
    `${l.quote.p50Ms} / ${l.quote.p99Ms}`,
    `${n(l.p99Ratio, 2)} (<= ${l.targetP99Ratio ?? stored.targetP99Ratio} ${met(
      l.meetsTarget,
    )})`,
    `${l.trivial.cpuMsPerRequest} / ${l.quote.cpuMsPerRequest} (${l.cpuPerRequestRatio}x)`,
  ];
  return {
    'http-latency': table(
      [
        'stored',
        'trivial p50 / p99 ms',
        'quote p50 / p99 ms',
        'p99 ratio (target)',
        'CPU ms per request, trivial / quote',
      ],
      [
        latencyRow('nothing', empty),
        latencyRow(
          `${n(stored.services)} services of ${n(stored.teams)} teams (${
            stored.database
          })`,
          stored,
        ),
      ],
    ),
    'http-creation': table(
      [
        'database',
        'storing the first services: per second, CPU ms each',
        'then created',
        'per second (target)',
        'p50 / p99 ms',
        'CPU ms per service',
      ],
      creations.map(c => [
        c.database,
        `${n(c.seeding.services)}: ${n(c.seeding.perSecond, 1)}/s, ${n(
          c.seeding.cpuMsPerService,
          2,
        )} ms`,
        n(c.created),
        `${n(c.perSecond, 1)} (>= ${c.target} ${met(c.met)})`,
        `${c.p50Ms} / ${c.p99Ms}`,
        n(c.cpuMsPerService, 2),
      ]),
    ),
  };
}

function cost(r: Results): Record<string, string> {
  const runs: Results[] = need(r.prometheus, 'prometheus runs');
  const row = (version: string, what: string, c: Results) => [
    version,
    what,
    n(c.queries),
    n(c.route.p50Ms, 1),
    n(c.rawPromql.p50Ms, 1),
    `${n(c.ratioP50, 3)}x`,
    `<= ${c.target}x ${met(c.met)}`,
  ];
  return {
    cost: table(
      [
        'Prometheus',
        'view',
        'PromQL queries',
        'route p50 ms',
        'raw PromQL p50 ms',
        'ratio',
        'target',
      ],
      runs.flatMap(run => [
        row(
          run.version,
          `cost card, ${run.costCard.days} days of 1-minute data`,
          run.costCard,
        ),
        row(
          run.version,
          `overview, ${n(run.overview.services)} services, a day (${
            run.overview.queryCount
          } queries; ${run.overview.queryCountFor12Services} for 12)`,
          run.overview,
        ),
      ]),
    ),
  };
}

function apply(r: Results): Record<string, string> {
  const perObject = need(r.requestsPerObject, 'requestsPerObject');
  const timing = need(r.applyTiming, 'applyTiming');
  const reconcile = need(r.reconcile, 'reconcile');
  const admission = need(r.admission, 'admission');
  return {
    apply: table(
      ['measure', 'target', 'measured'],
      [
        [
          'APPLY requests per applied object',
          '1',
          `${n(perObject.perObject, 3)} (${n(perObject.applyRequests)} for ${n(
            perObject.objects,
          )} objects of ${n(perObject.services)} services; ${
            perObject.queueDependencyApplyRequests
          } of the team's queue objects)`,
        ],
        [
          `apply time, product / plain loop (${n(
            timing.objectsPerPass,
          )} objects)`,
          `<= ${timing.target}`,
          `${n(timing.ratioOfMedians, 2)}: ${n(timing.productMs.median)} / ${n(
            timing.plainMs.median,
          )} ms`,
        ],
        [
          'mutating requests of a reconcile with nothing changed',
          '0',
          `${reconcile.mutatingOnKueueObjects} on Kueue objects (${reconcile.readsOfKueueObjects} GETs)`,
        ],
        [
          'create to admission, from the 201 / from the POST sent',
          '',
          `median ${admission.fromPostAcceptedSeconds.median} / ${admission.fromPostSentSeconds.median} s`,
        ],
      ],
    ),
  };
}

function prometheusDeadline(r: Results): Record<string, string> {
  const scenarios: Results[] = need(r.scenarios, 'scenarios');
  return {
    'prometheus-deadline': table(
      [
        'Prometheus answers',
        'card p50 / p99 ms',
        "cards' metrics states",
        'queries sent',
        `trivial p99 ms beside the cards (idle: ${n(r.idleTrivial.p99Ms)})`,
        `card p99 <= ${n(r.requestDeadlineMs)} + 1,000 ms`,
      ],
      scenarios.map(sc => [
        need(sc.prometheusAnswers, 'prometheusAnswers'),
        `${n(sc.card.p50Ms)} / ${n(sc.card.p99Ms)}`,
        Object.entries(need(sc.metricsStates, 'metricsStates'))
          .filter(([, count]) => (count as number) > 0)
          .map(([state, count]) => `${count} ${state}`)
          .join(', '),
        n(sc.prometheusQueries),
        n(sc.trivialUnderLoad.p99Ms),
        sc.behaviour === 'prompt'
          ? '(reference: no waiting)'
          : met(
              need(r.targets, 'targets')[sc.behaviour]
                .cardP99WithinDeadlinePlus1s,
            ),
      ]),
    ),
  };
}

function controller(r: Results): Record<string, string> {
  const post = need(r.postWithSlowApiServer, 'postWithSlowApiServer');
  const available = need(r.createToAvailable, 'createToAvailable');
  const applied = need(r.applyOfServices, 'applyOfServices');
  const reapply = need(r.reapply, 'reapply');
  const connections = need(applied.backendConnections, 'backendConnections');
  const side = (name: string, label: string) => {
    const s = need(reapply[name], `reapply.${name}`);
    return [
      label,
      n(s.ms.median),
      `${n(s.ms.min)}-${n(s.ms.max)}`,
      n(s.ms.median / reapply.plain.ms.median, 2),
      s.applyRequestsPerPass.join(', '),
      `${s.tlsHandshakesPerPass.join(', ')} (warm-up ${s.warmUp.handshakes})`,
    ];
  };
  return {
    controller: table(
      ['measure', 'target', 'measured'],
      [
        [
          `POST /services, every API server request held ${n(
            post.delayMs,
          )} ms: p50 / p99 (${post.postMs.n} POSTs)`,
          `p99 < ${post.target.postP99Ms} ms`,
          `${n(post.postMs.median, 1)} / ${n(post.postMs.p99, 1)} ms ${met(
            post.met,
          )}`,
        ],
        [
          `POST /services with no delay, one at a time: p50 / p99 (${available.postMs.n} POSTs)`,
          '',
          `${n(available.postMs.median, 1)} / ${n(available.postMs.p99, 1)} ms`,
        ],
        [
          `plain client-node apply through the same proxy: p50 / p99 (${post.plainApplyThroughProxyMs.n})`,
          '',
          `${n(post.plainApplyThroughProxyMs.median)} / ${n(
            post.plainApplyThroughProxyMs.p99,
          )} ms (${n(post.plainOverPostP99, 0)}x the POST p99)`,
        ],
        [
          `create to Available, one at a time: median / p95 (${available.services} services)`,
          '',
          `${n(available.conditionFromPostSentSeconds.median, 2)} / ${n(
            available.conditionFromPostSentSeconds.p95,
            2,
          )} s`,
        ],
        [
          `APPLY requests per applied object (${n(
            applied.objects,
          )} distinct objects of ${n(applied.services)} services)`,
          '1',
          `${n(applied.perObject, 3)} (${n(applied.applyRequests)} APPLY)`,
        ],
        [
          `connections (TLS handshakes) the backend opened: slow POSTs / one at a time / burst of ${n(
            applied.burst.services,
          )}`,
          `<= ${applied.poolSize} per pass`,
          `${connections.slowPosts} / ${connections.oneAtATime} / ${connections.burst}`,
        ],
        [
          `re-applying ${n(
            reapply.objectsPerPass,
          )} unchanged objects, reconciler / plain loop`,
          `<= ${reapply.target}`,
          `${n(reapply.ratio, 2)} ${met(reapply.ratio <= reapply.target)}`,
        ],
      ],
    ),
    'controller-reapply': table(
      [
        'side',
        'median ms',
        'range ms',
        '/ plain',
        'APPLY per pass',
        'TLS handshakes per pass',
      ],
      [
        side(
          'reconciler',
          `reconciler: work queue (${reapply.reconcilerConcurrency} services at once), applying only what differs`,
        ),
        side('applier', 'product applier, one service after another'),
        side('plain', 'plain @kubernetes/client-node loop'),
      ],
    ),
  };
}

function governance(r: Results): Record<string, string> {
  const stored = need(r.stored, 'stored');
  const api = need(r.api, 'api');
  const calls: Results[] = need(api.calls, 'api.calls');
  return {
    governance: table(
      ['API request of the first paint', 'status', 'KB', 'rows (page asked)'],
      [
        ...calls.map(c => [
          `${c.method} ${c.path}${c.query}`.replace(/\|/g, '\\|'),
          c.status,
          n(c.bytes / 1000, 1),
          c.rows === undefined
            ? ''
            : `${n(c.rows)}${c.limit === undefined ? '' : ` (${n(c.limit)})`}`,
        ]),
        [
          `**${n(api.requests)} requests** with ${n(
            stored.services,
          )} services and ${n(
            stored.pendingApprovals,
          )} pending approvals stored`,
          '',
          `**${n(api.bytes / 1000, 1)}**`,
          `most ${n(r.lists.mostRows)}; paged lists one page each: ${
            r.lists.onePageEach ? 'yes' : '**no**'
          }`,
        ],
      ],
    ),
  };
}

function twoReplicas(r: Results): Record<string, string> {
  return {
    'two-replicas': table(
      ['measure', 'limit', 'measured'],
      twoReplicasRows(r).rows,
    ),
  };
}

const RENDERERS: Record<string, (r: Results) => Record<string, string>> = {
  governance,
  'domain-core': domainCore,
  http,
  cost,
  apply,
  controller,
  'two-replicas': twoReplicas,
  'prometheus-deadline': prometheusDeadline,
};

/** The issue's targets at ten times the first sizes, each against what the latest results measured. */
function targets(results: Record<string, Results>): string {
  const rows: Array<Array<string | number>> = [];
  const http = results.http;
  if (http) {
    const stored = http.latencyWithServicesStored;
    rows.push([
      `quote p99 / minimal authenticated route p99, ${n(
        stored.services,
      )} services of ${n(stored.teams)} teams stored, ${
        http.settings.connections
      } connections`,
      `<= ${stored.targetP99Ratio}`,
      `${n(stored.p99Ratio, 2)} ${met(stored.meetsTarget)} (CPU per request ${
        stored.cpuPerRequestRatio
      }x)`,
    ]);
    for (const c of http.creation) {
      rows.push([
        `services created per second, ${n(c.existingServices)} stored, ${
          c.database
        }`,
        `>= ${c.target}`,
        `${n(c.perSecond, 1)} ${met(c.met)} (${n(
          c.cpuMsPerService,
          1,
        )} ms backend CPU each)`,
      ]);
    }
  }
  const core = results['domain-core'];
  if (core) {
    rows.push([
      `quote body for ${core.quote.pools} pools (JSON): summary (detail=summary) and full`,
      '<= 10 KB',
      core.quote.summaryJsonBytes === undefined
        ? `${n(core.quote.jsonBytes / 1000, 1)} KB ${met(
            core.quote.jsonBytes <= 10_000,
          )}`
        : `summary ${n(core.quote.summaryJsonBytes / 1000, 1)} KB ${met(
            core.quote.summaryJsonBytes <= 10_000,
          )}; full ${n(core.quote.jsonBytes / 1000, 1)} KB, on request${
            core.quote.rowDetailJsonBytes === undefined
              ? ''
              : `; the tier picker reads the summary and the full quote of the row it shows, ${n(
                  core.quote.rowDetailJsonBytes / 1000,
                  1,
                )} KB`
          }`,
    ]);
    const largest = core.planner
      .filter((p: Results) => p.mix === 'service requests')
      .sort((a: Results, b: Results) => b.services - a.services)[0];
    rows.push([
      `planner on ${n(largest.services)} requests: GPUs / lower bound, time`,
      '1.0x, <= 500 ms',
      `${n(largest.ratio, 3)}x ${met(largest.ratio <= 1.0001)}, ${n(
        largest.totalMillis,
      )} ms ${met(largest.totalMillis <= 500)} (${n(
        largest.cpuMillis,
      )} ms of CPU)`,
    ]);
  }
  const cost = results.cost;
  if (cost) {
    for (const run of cost.prometheus) {
      rows.push([
        `cost card over ${run.costCard.days} days / raw PromQL, Prometheus ${run.version}`,
        `<= ${run.costCard.target}`,
        `${n(run.costCard.ratioP50, 2)} ${met(run.costCard.met)}`,
      ]);
      rows.push([
        `overview of ${n(
          run.overview.services,
        )} services over a day / raw PromQL, Prometheus ${run.version}`,
        `<= ${run.overview.target}, constant queries`,
        `${n(run.overview.ratioP50, 2)} ${met(run.overview.met)}, ${
          run.overview.queryCount
        } queries (${
          run.overview.queryCountFor12Services
        } for 12 services) ${met(run.overview.queryCountBounded)}`,
      ]);
    }
  }
  const controllerResults = results.controller;
  if (controllerResults) {
    const post = controllerResults.postWithSlowApiServer;
    rows.push([
      `POST /services p99, API server slowed to ${n(
        post.delayMs,
      )} ms per request`,
      `< ${post.target.postP99Ms} ms`,
      `${n(post.postMs.p99, 1)} ms ${met(post.met)} (plain apply ${n(
        post.plainApplyThroughProxyMs.p99,
      )} ms)`,
    ]);
    const reapply = controllerResults.reapply;
    rows.push([
      `re-applying ${n(
        reapply.objectsPerPass,
      )} unchanged objects / plain client-node loop`,
      `<= ${reapply.target}`,
      `${n(reapply.ratio, 2)} ${met(reapply.ratio <= reapply.target)}`,
    ]);
  }
  const gov = results.governance;
  if (gov) {
    rows.push([
      `governance page first paint in Chromium, ${n(
        gov.stored.services,
      )} services and ${n(
        gov.stored.pendingApprovals,
      )} pending approvals: API requests, bytes`,
      'one page of each table (no answer over 100 KB)',
      `${n(gov.api.requests)} requests, ${n(gov.api.bytes / 1000, 1)} KB; ${
        gov.lists.count
      } paged lists, one page each ${met(
        gov.lists.onePageEach,
      )}; largest answer ${gov.api.largest.path} ${n(
        gov.api.largest.bytes / 1000,
        1,
      )} KB ${met(gov.api.largest.bytes <= 100_000)}`,
    ]);
  }
  const two = results['two-replicas'];
  if (two) {
    rows.push([
      `${n(
        two.burst.services,
      )} creates on 2 replicas, one SIGKILLed mid-burst: APPLY per object, outcome, ledger`,
      '1 APPLY per object, all settled, ledger exact',
      `${n(two.applies.applyRequests)} APPLY for ${n(
        two.applies.objects,
      )} objects (${n(two.applies.resumedServices)} services resumed), ${n(
        two.outcome.available,
      )} Available, lost ${n(two.ledger.lost.length)}, doubled ${n(
        two.ledger.doubled.length,
      )} ${met(twoReplicasRows(two).ok)}`,
    ]);
  }
  return table(['target', 'goal', 'measured'], rows);
}

/** The README tables of each results file given (by benchmark name), by table name. */
export function renderTables(
  results: Record<string, unknown>,
): Record<string, string> {
  const tables: Record<string, string> = {};
  for (const [name, value] of Object.entries(results)) {
    const render = RENDERERS[name];
    if (!render) throw new Error(`no README tables for results ${name}`);
    Object.assign(tables, render(value));
  }
  tables.targets = targets(results as Record<string, Results>);
  return tables;
}

/** `readme` with each table between its markers replaced; a marker pair that is missing is an error. */
export function replaceTables(
  readme: string,
  tables: Record<string, string>,
): string {
  let out = readme;
  for (const [name, markdown] of Object.entries(tables)) {
    const open = `<!-- results:${name} -->`;
    const close = `<!-- /results:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) {
      throw new Error(`bench/README.md has no ${open} ... ${close}`);
    }
    out = `${out.slice(0, start + open.length)}\n\n${markdown}\n\n${out.slice(
      end,
    )}`;
  }
  return out;
}
