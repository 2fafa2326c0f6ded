/**
 * What the NVIDIA DRA driver (kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1, `cmd/gpu-kubelet-plugin`) would publish
 * for the GPUs of the simulated fleet, written down from NVIDIA's documents rather than taken from the product's GPU
 * catalogue, so that a test of the product's rendering against these devices checks the catalogue too.
 *
 * Sources:
 * - productName: the name NVML reports (`nvidia-smi --query-gpu=name`), which the driver publishes as `productName`
 *   and GPU feature discovery turns into the `nvidia.com/gpu.product` label by replacing spaces with `-`.
 * - architecture: NVIDIA's architecture names as go-nvlib prints them (the driver's `architecture` attribute):
 *   the L4 and L40S are Ada Lovelace, the T4 Turing, the A10G, A30 and A100 Ampere, the H100 Hopper.
 * - memoryGB: the product datasheets ("NVIDIA L4 Tensor Core GPU" datasheet: 24GB GDDR6; "NVIDIA A100 Tensor Core
 *   GPU" datasheet: 80GB HBM2e for the A100 80GB SXM; "NVIDIA T4" datasheet: 16 GB GDDR6).
 * - MIG profiles: the NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles", A100-SXM4-80GB table: GPU
 *   instance profile ID, memory (the guide's GB figure), SMs (14 per compute slice), and memory slices (the
 *   placement size, out of 8).
 * - MIG placements: the same guide, "A100 MIG Profiles" placement figure and `nvidia-smi mig -lgipp` on an A100
 *   (`Placements: {0,1,2,3,4,5,6}:1` for profile 19, `{0,2,4,6}:2` for 15, `{0,2,4}:2` for 14, `{0,4}:4` for 9,
 *   `{0}:4` for 5, `{0}:8` for 0): the first memory slice each instance can start at.
 */

/** One MIG GPU-instance profile of a GPU, as the MIG User Guide lists it. */
export interface MigProfileFact {
  /** Profile name as `nvidia-smi mig -lgip` prints it. */
  profile: string;
  /** GPU instance profile ID (the driver's canonical MIG device name carries it). */
  profileId: number;
  /** Memory of the instance in GB, as the guide writes it. */
  memoryGB: number;
  /** Streaming multiprocessors of the instance (the driver's `multiprocessors` capacity). */
  multiprocessors: number;
  /** Memory slices the instance occupies (its placement size, out of 8). */
  memorySlices: number;
  /** Memory slices an instance of the profile can start at (its placements' starts). */
  placements: number[];
}

/** Facts of one GPU product. */
export interface GpuProductFact {
  productName: string;
  architecture: string;
  /** Datasheet memory in GB. */
  memoryGB: number;
  migProfiles: MigProfileFact[];
}

/**
 * The products of the simulated fleet, keyed by the `nvidia.com/gpu.product` label GPU feature discovery derives
 * from the NVML name (how a pool's nodes are recognised).
 */
export const NVIDIA_GPU_PRODUCT_FACTS: Readonly<
  Record<string, GpuProductFact>
> = {
  'NVIDIA-L4': {
    productName: 'NVIDIA L4',
    architecture: 'Ada Lovelace',
    memoryGB: 24,
    migProfiles: [],
  },
  'Tesla-T4': {
    productName: 'Tesla T4',
    architecture: 'Turing',
    memoryGB: 16,
    migProfiles: [],
  },
  'NVIDIA-A100-SXM4-80GB': {
    productName: 'NVIDIA A100-SXM4-80GB',
    architecture: 'Ampere',
    memoryGB: 80,
    migProfiles: [
      {
        profile: '1g.10gb',
        profileId: 19,
        memoryGB: 9.75,
        multiprocessors: 14,
        memorySlices: 1,
        placements: [0, 1, 2, 3, 4, 5, 6],
      },
      {
        profile: '1g.20gb',
        profileId: 15,
        memoryGB: 19.62,
        multiprocessors: 14,
        memorySlices: 2,
        placements: [0, 2, 4, 6],
      },
      {
        profile: '2g.20gb',
        profileId: 14,
        memoryGB: 19.62,
        multiprocessors: 28,
        memorySlices: 2,
        placements: [0, 2, 4],
      },
      {
        profile: '3g.40gb',
        profileId: 9,
        memoryGB: 39.5,
        multiprocessors: 42,
        memorySlices: 4,
        placements: [0, 4],
      },
      {
        profile: '4g.40gb',
        profileId: 5,
        memoryGB: 39.5,
        multiprocessors: 56,
        memorySlices: 4,
        placements: [0],
      },
      {
        profile: '7g.80gb',
        profileId: 0,
        memoryGB: 79.25,
        multiprocessors: 98,
        memorySlices: 8,
        placements: [0],
      },
    ],
  },
};
