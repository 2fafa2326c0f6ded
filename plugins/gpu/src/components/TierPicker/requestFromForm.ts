import { parseEntityRef } from '@backstage/catalog-model';
import {
  Dtype,
  DTYPES,
  isDns1123Label,
  MAX_SERVICE_NAME_LENGTH,
  Runtime,
  RUNTIMES,
  ServiceRequest,
} from '@gpu-platform/backstage-plugin-gpu-common';

/**
 * The sibling form fields the tier picker reads, by their names in the "GPU model service" template:
 * `owner` (a group entity ref or name), `name`, `model`, `runtime`, `dtype` (or `quantization`), `maxModelLen` (or
 * `contextLength`), `concurrency`, `replicas`, `environment` and, optionally, `expectedTokensPerSecond`,
 * `measuredTokensPerSecond` (one replica's benchmarked capacity), `concurrentSequences` (full-length sequences to hold at once)
 * and `scaling` with its branch's fields: `autoscaling` for `queue`, `scaleToZero` for `zero` (what the template's
 * create step sends as the request's `autoscaling`), so the quote prices the scaling chosen; and, on vLLM,
 * `latencyBudgetSeconds` (the request's `latencyBudget.p95Seconds`; a value a form switched to Ollama still holds is
 * not quoted, as the template's steps do not send it).
 */
export type ServiceForm = Record<string, unknown>;

/** Quoted under this name while the form's own name is empty or not yet a valid DNS label (it affects no number). */
export const PREVIEW_SERVICE_NAME = 'new-service';

/** The request to quote, or the form fields still missing before one can be made. */
export type FormRequest =
  | { request: ServiceRequest; missing?: undefined }
  | { request?: undefined; missing: string[] };

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== ''
    ? value.trim()
    : undefined;
}

function positiveInteger(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0
    ? number
    : undefined;
}

function wholeNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 0
    ? number
    : undefined;
}

/**
 * The autoscaling of the form's `scaling` choice, as the template's create step sends it (`scaleToZero` for `zero`,
 * `autoscaling` for `queue`, none for `fixed`), or the branch's fields still missing.
 */
function autoscalingOf(
  data: ServiceForm,
):
  | { autoscaling?: ServiceRequest['autoscaling']; missing: string[] }
  | undefined {
  const scaling = text(data.scaling);
  let field: 'autoscaling' | 'scaleToZero';
  if (scaling === 'queue') field = 'autoscaling';
  else if (scaling === 'zero') field = 'scaleToZero';
  else return undefined;
  const branch = (data[field] ?? {}) as Record<string, unknown>;
  const values = {
    minReplicas: wholeNumber(branch.minReplicas),
    maxReplicas: positiveInteger(branch.maxReplicas),
    targetQueueDepth: positiveInteger(branch.targetQueueDepth),
  };
  const missing = Object.entries(values)
    .filter(([, value]) => value === undefined)
    .map(([name]) => `${field}.${name}`);
  if (missing.length > 0) return { missing };
  return {
    autoscaling: {
      minReplicas: values.minReplicas!,
      maxReplicas: values.maxReplicas!,
      targetQueueDepth: values.targetQueueDepth!,
      engine: branch.engine === 'hpa' ? 'hpa' : 'keda',
    },
    missing: [],
  };
}

function positiveNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0
    ? number
    : undefined;
}

function teamOf(owner: string | undefined): string | undefined {
  if (!owner) return undefined;
  try {
    return parseEntityRef(owner, {
      defaultKind: 'group',
      defaultNamespace: 'default',
    }).name;
  } catch {
    return undefined;
  }
}

function serviceName(value: unknown): string {
  const name = text(value);
  return name && isDns1123Label(name, MAX_SERVICE_NAME_LENGTH)
    ? name
    : PREVIEW_SERVICE_NAME;
}

/**
 * Builds the quote request from the template's form data; lists the fields (by their form names) that are still
 * empty. Replicas default to 1 and the dtype to the model's own.
 */
export function requestFromForm(form: ServiceForm | undefined): FormRequest {
  const data = form ?? {};
  const team = teamOf(text(data.owner));
  const model = text(data.model);
  const runtime = text(data.runtime) as Runtime | undefined;
  const maxModelLen =
    positiveInteger(data.maxModelLen) ?? positiveInteger(data.contextLength);
  const concurrency = positiveInteger(data.concurrency);
  const environment = text(data.environment);
  const dtype = (text(data.dtype) ?? text(data.quantization)) as
    | Dtype
    | undefined;

  const missing = Object.entries({
    owner: team,
    model,
    runtime: runtime && RUNTIMES.includes(runtime) ? runtime : undefined,
    maxModelLen,
    concurrency,
    environment,
  })
    .filter(([, value]) => value === undefined)
    .map(([field]) => field);
  const scaling = autoscalingOf(data);
  missing.push(...(scaling?.missing ?? []));
  if (missing.length > 0) {
    return { missing };
  }

  const expectedTokensPerSecond = positiveNumber(data.expectedTokensPerSecond);
  const measuredTokensPerSecond = positiveNumber(data.measuredTokensPerSecond);
  const concurrentSequences = positiveInteger(data.concurrentSequences);
  const latencyBudgetSeconds =
    runtime === 'vllm' ? positiveNumber(data.latencyBudgetSeconds) : undefined;
  return {
    request: {
      name: serviceName(data.name),
      team: team!,
      model: model!,
      runtime: runtime!,
      ...(dtype && DTYPES.includes(dtype) ? { dtype } : {}),
      maxModelLen: maxModelLen!,
      concurrency: concurrency!,
      ...(concurrentSequences ? { concurrentSequences } : {}),
      replicas: positiveInteger(data.replicas) ?? 1,
      environment: environment!,
      ...(expectedTokensPerSecond ? { expectedTokensPerSecond } : {}),
      ...(measuredTokensPerSecond ? { measuredTokensPerSecond } : {}),
      ...(scaling?.autoscaling ? { autoscaling: scaling.autoscaling } : {}),
      ...(latencyBudgetSeconds
        ? { latencyBudget: { p95Seconds: latencyBudgetSeconds } }
        : {}),
    },
  };
}
