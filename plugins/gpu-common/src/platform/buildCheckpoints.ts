import { z } from 'zod';
import { listAllowed } from '../errors';
import { ConfigIssues } from './configIssues';
import { platformConfigSchema } from './platformConfigSchema';
import {
  Dtype,
  DtypeCheckpoints,
  ModelSpec,
  OllamaQuantization,
  VllmQuantization,
} from './types';

type RawModel = NonNullable<
  z.output<typeof platformConfigSchema>['models']
>[string];
type RawCheckpoint = NonNullable<NonNullable<RawModel['checkpoints']>[Dtype]>;

interface FormatRule<F> {
  /** Formats a checkpoint of the dtype may have. */
  allowed: F[];
  /** The format when the entry names none; without one the format must be given. */
  fallback?: F;
}

/** What a vLLM checkpoint of each dtype can be: unquantised dtypes load as stored, the others name their method. */
const VLLM_FORMATS: Record<Dtype, FormatRule<VllmQuantization>> = {
  fp32: { allowed: ['none'], fallback: 'none' },
  bf16: { allowed: ['none'], fallback: 'none' },
  fp16: { allowed: ['none'], fallback: 'none' },
  fp8: { allowed: ['fp8', 'compressed-tensors'], fallback: 'fp8' },
  int8: { allowed: ['gptq', 'compressed-tensors'] },
  int4: { allowed: ['awq', 'gptq', 'compressed-tensors'] },
};

/** GGUF types of each dtype (GGUF has no bf16-specific, fp8 or fp32 type Ollama tags use). */
const OLLAMA_FORMATS: Record<Dtype, FormatRule<OllamaQuantization>> = {
  fp32: { allowed: [] },
  bf16: { allowed: ['f16'], fallback: 'f16' },
  fp16: { allowed: ['f16'], fallback: 'f16' },
  fp8: { allowed: [] },
  int8: { allowed: ['q8_0'], fallback: 'q8_0' },
  int4: { allowed: ['q4_K_M', 'q4_0'], fallback: 'q4_K_M' },
};

function pickFormat<F extends string>(
  rule: FormatRule<F>,
  given: F | undefined,
  what: string,
  path: (string | number)[],
  issues: ConfigIssues,
): F | undefined {
  const format = given ?? rule.fallback;
  if (rule.allowed.length === 0) {
    issues.add(path, `there are no ${what}`);
    return undefined;
  }
  if (format === undefined) {
    issues.add(path, `needs its format; allowed: ${listAllowed(rule.allowed)}`);
    return undefined;
  }
  if (!rule.allowed.includes(format)) {
    issues.add(
      path,
      `"${format}" is not a format of ${what}; allowed: ${listAllowed(
        rule.allowed,
      )}`,
    );
    return undefined;
  }
  return format;
}

function applyEntry(
  current: DtypeCheckpoints,
  dtype: Dtype,
  raw: RawCheckpoint,
  path: (string | number)[],
  issues: ConfigIssues,
): DtypeCheckpoints {
  const next = { ...current };
  if (raw.huggingFaceId !== undefined || raw.format !== undefined) {
    const huggingFaceId = raw.huggingFaceId ?? current.vllm?.huggingFaceId;
    const format = pickFormat(
      VLLM_FORMATS[dtype],
      raw.format ?? (raw.huggingFaceId ? undefined : current.vllm?.format),
      `${dtype} Hugging Face checkpoints`,
      [...path, 'format'],
      issues,
    );
    if (!huggingFaceId) {
      issues.add([...path, 'huggingFaceId'], 'format needs a huggingFaceId');
    } else if (format) {
      next.vllm = { huggingFaceId, format };
    }
  }
  if (raw.ollamaTag !== undefined || raw.ollamaFormat !== undefined) {
    const tag = raw.ollamaTag ?? current.ollama?.tag;
    const format = pickFormat(
      OLLAMA_FORMATS[dtype],
      raw.ollamaFormat ?? (raw.ollamaTag ? undefined : current.ollama?.format),
      `Ollama ${dtype} tags`,
      [...path, raw.ollamaFormat !== undefined ? 'ollamaFormat' : 'ollamaTag'],
      issues,
    );
    if (!tag) {
      issues.add([...path, 'ollamaTag'], 'ollamaFormat needs an ollamaTag');
    } else if (format) {
      next.ollama = { tag, format };
    }
  }
  return next;
}

/**
 * A model's checkpoints: the built-in ones (`base`) with what `gpu.models.<key>` gives laid over them dtype by dtype.
 * A model-level `huggingFaceId` or `ollamaTag` (configs written before `checkpoints`) is the checkpoint of the
 * model's default dtype; `checkpoints.<dtype>` wins over it. A vLLM checkpoint of bf16, fp16 or fp32 is `none`
 * (loaded as stored) and of fp8 `fp8` (quantised on load) unless its `format` says otherwise; int8 and int4 ones must
 * name theirs. Ollama tags default to f16, q8_0 and q4_K_M; fp8 and fp32 have none.
 */
export function buildCheckpoints(
  base: ModelSpec['checkpoints'] | undefined,
  entry: RawModel,
  defaultDtype: Dtype,
  path: (string | number)[],
  issues: ConfigIssues,
): ModelSpec['checkpoints'] {
  const result: ModelSpec['checkpoints'] = structuredClone(base ?? {});
  if (entry.huggingFaceId !== undefined || entry.ollamaTag !== undefined) {
    const legacy: RawCheckpoint = {
      ...(entry.huggingFaceId !== undefined
        ? { huggingFaceId: entry.huggingFaceId }
        : {}),
      ...(entry.ollamaTag !== undefined ? { ollamaTag: entry.ollamaTag } : {}),
    };
    result[defaultDtype] = applyEntry(
      result[defaultDtype] ?? {},
      defaultDtype,
      legacy,
      [...path, 'checkpoints', defaultDtype],
      issues,
    );
  }
  for (const [dtype, raw] of Object.entries(entry.checkpoints ?? {}) as [
    Dtype,
    RawCheckpoint,
  ][]) {
    result[dtype] = applyEntry(
      result[dtype] ?? {},
      dtype,
      raw,
      [...path, 'checkpoints', dtype],
      issues,
    );
  }
  return result;
}
