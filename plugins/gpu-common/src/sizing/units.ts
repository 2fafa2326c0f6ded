/**
 * Byte units. Card memory is counted in GiB (2^30 bytes, what `GpuModel.memoryGiB` states); MIG profile names and
 * every human-readable figure this package prints are in GB (10^9 bytes), as NVIDIA names profiles (`1g.10gb`).
 *
 * @public
 */
export const GIB = 2 ** 30;

/**
 * One GB, 10^9 bytes. See {@link GIB}.
 *
 * @public
 */
export const GB = 1e9;

/**
 * Bytes as GB with one decimal, e.g. `17.9 GB`.
 *
 * @public
 */
export function formatGb(bytes: number): string {
  return `${(bytes / GB).toFixed(1)} GB`;
}
