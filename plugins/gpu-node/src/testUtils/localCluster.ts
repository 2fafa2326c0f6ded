/* eslint-disable jest/no-export -- a test helper: the describe it defines runs in the suites that call it */
import fs from 'node:fs';

/**
 * The kubeconfig of the local control plane (`scripts/cluster up`) that the `*.cluster.test.ts` suites run against,
 * read from `GPU_TEST_KUBECONFIG`; an error naming what to do when there is none. Those suites run only in
 * `yarn test:cluster` (`scripts/test` starts the cluster for it); a plain `yarn test` leaves them out.
 *
 * @public
 */
export function localClusterKubeconfig(): string {
  const path = process.env.GPU_TEST_KUBECONFIG;
  if (path && fs.existsSync(path)) {
    return path;
  }
  throw new Error(
    `No local cluster: GPU_TEST_KUBECONFIG is ${
      path ? `${path}, which does not exist` : 'not set'
    }. Start one with scripts/cluster up and set GPU_TEST_KUBECONFIG to its kubeconfig (scripts/cluster env).`,
  );
}

/**
 * `describe` on the local control plane: the suite gets the cluster's kubeconfig, and fails at once without one
 * (see {@link localClusterKubeconfig}).
 *
 * @public
 */
export function describeOnLocalCluster(
  name: string,
  suite: (kubeconfig: string) => void,
): void {
  const kubeconfig = localClusterKubeconfig();
  describe(`${name}`, () => {
    suite(kubeconfig);
  });
}
