/* eslint-disable jest/no-export -- a test helper: the describe it defines runs in the suites that call it */
import fs from 'node:fs';

/**
 * The kubeconfig of the local control plane (`scripts/cluster up`) that the `*.cluster.test.ts` suites run against,
 * read from `GPU_TEST_KUBECONFIG`. With `GPU_TEST_CLUSTER_REQUIRED` set (`scripts/test` runs `yarn test:cluster` so)
 * a missing cluster is an error; otherwise those suites are skipped, as in a plain `yarn test`.
 *
 * @public
 */
export function localClusterKubeconfig(): string | undefined {
  const path = process.env.GPU_TEST_KUBECONFIG;
  if (path && fs.existsSync(path)) {
    return path;
  }
  if (process.env.GPU_TEST_CLUSTER_REQUIRED) {
    throw new Error(
      `No local cluster: GPU_TEST_KUBECONFIG is ${
        path ? `${path}, which does not exist` : 'not set'
      }. Start one with scripts/cluster up and set GPU_TEST_KUBECONFIG to its kubeconfig (scripts/cluster env).`,
    );
  }
  return undefined;
}

/**
 * `describe` on the local control plane: skipped without one (see {@link localClusterKubeconfig}).
 *
 * @public
 */
export function describeOnLocalCluster(
  name: string,
  suite: (kubeconfig: string) => void,
): void {
  const kubeconfig = localClusterKubeconfig();
  if (kubeconfig) {
    describe(`${name}`, () => {
      suite(kubeconfig);
    });
  } else {
    // Without a cluster the suite is not defined (it needs the cluster to build its clients) and is reported as
    // skipped; scripts/test runs these suites with GPU_TEST_CLUSTER_REQUIRED, where a missing cluster fails.
    describe(`${name}`, () => {
      // eslint-disable-next-line jest/no-disabled-tests, jest/expect-expect
      it.skip('needs the local control plane (scripts/cluster up, then GPU_TEST_KUBECONFIG)', () => {});
    });
  }
}
