import { useApi } from '@backstage/frontend-plugin-api';
import useAsync from 'react-use/esm/useAsync';
import { gpuApiRef } from '../../api';

/** `GET /platform`, read once per mount: pools, teams and their quotas, policy and the billing month. */
export function usePlatform() {
  const gpuApi = useApi(gpuApiRef);
  return useAsync(() => gpuApi.getPlatform(), [gpuApi]);
}
