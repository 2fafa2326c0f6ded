/**
 * A DNS-1123 label: lowercase letters, digits and `-`, starting and ending with a letter or digit, at most 63
 * characters. Kubernetes names of namespaces, pools (ResourceFlavors), teams and services must be one.
 *
 * @public
 */
export const DNS1123_LABEL_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Whether `value` is a DNS-1123 label of at most `maxLength` (63 by default) characters.
 *
 * @public
 */
export function isDns1123Label(value: string, maxLength = 63): boolean {
  return value.length <= maxLength && DNS1123_LABEL_PATTERN.test(value);
}

/** Qualified Kubernetes label key: optional DNS subdomain prefix (<= 253) and `/`, then a name of <= 63 chars. */
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Whether `key` is a valid Kubernetes label (or taint) key, e.g. `nvidia.com/gpu.product`.
 *
 * @public
 */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined) {
    if (prefix.length === 0 || prefix.length > 253) return false;
    if (!DNS1123_SUBDOMAIN.test(prefix)) return false;
  }
  return name.length > 0 && name.length <= 63 && LABEL_NAME.test(name);
}

/**
 * Whether `value` is a valid Kubernetes label value (empty, or at most 63 chars of alphanumerics, `-`, `_`, `.`).
 *
 * @public
 */
export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && LABEL_NAME.test(value));
}
