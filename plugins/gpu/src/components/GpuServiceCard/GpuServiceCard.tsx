import { InfoCard } from '@backstage/core-components';
import {
  MissingAnnotationEmptyState,
  useEntity,
} from '@backstage/plugin-catalog-react';
import { GPU_SERVICE_ID_ANNOTATION, gpuServiceIdOf } from './annotations';
import { GpuServiceCardContent } from './GpuServiceCardContent';

/**
 * Entity card of a GPU model service: tier and pool, what its cluster says (apply mode), utilisation and memory over
 * time, tokens/s and queue depth, cost month-to-date, projected and per 1,000 tokens, idle share, spot saving and
 * recommendations. Reads the service id from the entity's `gpu.backstage.io/service-id` annotation.
 */
export function GpuServiceCard() {
  const { entity } = useEntity();
  const serviceId = gpuServiceIdOf(entity);
  if (!serviceId) {
    return (
      <InfoCard title="GPU usage and cost">
        <MissingAnnotationEmptyState annotation={GPU_SERVICE_ID_ANNOTATION} />
      </InfoCard>
    );
  }
  return <GpuServiceCardContent serviceId={serviceId} />;
}
