import { migProfile } from './migProfileName';
import { GpuModel } from './types';

function noMig(
  name: string,
  memoryGiB: number,
  productLabel: string,
  productName: string,
): GpuModel {
  return {
    name,
    memoryGiB,
    productLabel,
    productName,
    migComputeSlices: 0,
    migProfiles: [],
  };
}

function withMig(
  name: string,
  memoryGiB: number,
  productLabel: string,
  productName: string,
  migComputeSlices: number,
  profiles: Array<[string, number, number?]>,
): GpuModel {
  return {
    name,
    memoryGiB,
    productLabel,
    productName,
    migComputeSlices,
    migProfiles: profiles.map(([profile, max, sms]) =>
      migProfile(profile, max, sms),
    ),
  };
}

/**
 * The GPU models the platform knows without configuration, keyed by catalogue name. Memory is the card's nominal
 * memory; MIG profiles and their maximum instance counts are NVIDIA's (mig-parted `config-default.yaml`, GPU
 * Operator docs); MIG is unavailable on T4, A10G, L4 and L40S. SMs per MIG profile (what dynamic MIG weighs) are
 * the NVIDIA MIG User Guide's (supported profiles tables) for the A100-80GB and the H100-80GB (not its `1g.20gb`);
 * the other models' are not catalogued, so they cannot be dynamic MIG pools unless `gpu.gpuModels` gives them. Product names are NVML's (`nvidia-smi --query-gpu=name`),
 * of which GPU feature discovery's product label is the name with spaces replaced by `-`. `gpu.gpuModels` in app-config extends or overrides
 * these.
 *
 * @public
 */
export const defaultGpuModels: Record<string, GpuModel> = {
  T4: noMig('T4', 16, 'Tesla-T4', 'Tesla T4'),
  A10G: noMig('A10G', 24, 'NVIDIA-A10G', 'NVIDIA A10G'),
  L4: noMig('L4', 24, 'NVIDIA-L4', 'NVIDIA L4'),
  L40S: noMig('L40S', 48, 'NVIDIA-L40S', 'NVIDIA L40S'),
  'A30-24GB': withMig('A30-24GB', 24, 'NVIDIA-A30', 'NVIDIA A30', 4, [
    ['1g.6gb', 4],
    ['2g.12gb', 2],
    ['4g.24gb', 1],
  ]),
  'A100-40GB': withMig(
    'A100-40GB',
    40,
    'NVIDIA-A100-SXM4-40GB',
    'NVIDIA A100-SXM4-40GB',
    7,
    [
      ['1g.5gb', 7],
      ['1g.10gb', 4],
      ['2g.10gb', 3],
      ['3g.20gb', 2],
      ['4g.20gb', 1],
      ['7g.40gb', 1],
    ],
  ),
  'A100-80GB': withMig(
    'A100-80GB',
    80,
    'NVIDIA-A100-SXM4-80GB',
    'NVIDIA A100-SXM4-80GB',
    7,
    [
      ['1g.10gb', 7, 14],
      ['1g.20gb', 4, 14],
      ['2g.20gb', 3, 28],
      ['3g.40gb', 2, 42],
      ['4g.40gb', 1, 56],
      ['7g.80gb', 1, 98],
    ],
  ),
  'H100-80GB': withMig(
    'H100-80GB',
    80,
    'NVIDIA-H100-80GB-HBM3',
    'NVIDIA H100 80GB HBM3',
    7,
    [
      ['1g.10gb', 7, 16],
      ['1g.20gb', 4],
      ['2g.20gb', 3, 32],
      ['3g.40gb', 2, 60],
      ['4g.40gb', 1, 64],
      ['7g.80gb', 1, 132],
    ],
  ),
  'H100-NVL-94GB': withMig(
    'H100-NVL-94GB',
    94,
    'NVIDIA-H100-NVL',
    'NVIDIA H100 NVL',
    7,
    [
      ['1g.12gb', 7],
      ['1g.24gb', 4],
      ['2g.24gb', 3],
      ['3g.47gb', 2],
      ['4g.47gb', 1],
      ['7g.94gb', 1],
    ],
  ),
  'H200-141GB': withMig('H200-141GB', 141, 'NVIDIA-H200', 'NVIDIA H200', 7, [
    ['1g.18gb', 7],
    ['1g.35gb', 4],
    ['2g.35gb', 3],
    ['3g.71gb', 2],
    ['4g.71gb', 1],
    ['7g.141gb', 1],
  ]),
};
