import { LocalQueue } from './kueue/types';
import { renderTeamManifests } from './renderTeamManifests';
import { demoPlatform, servingAndOcrBatchPlatform } from './__testUtils__/platforms';

describe('renderTeamManifests', () => {
  it("renders a LocalQueue in each of the team's namespaces, pointing at its ClusterQueue", () => {
    const objects = renderTeamManifests(
      demoPlatform(),
      'ml-platform',
    ) as LocalQueue[];
    expect(objects).toEqual(
      ['ml-platform', 'ml-serving'].map(namespace => ({
        apiVersion: 'kueue.x-k8s.io/v1beta2',
        kind: 'LocalQueue',
        metadata: {
          name: 'gpu-ml-platform',
          namespace,
          labels: {
            'app.kubernetes.io/managed-by': 'backstage-gpu',
            'gpu.backstage.io/scope': 'team',
            'gpu.backstage.io/team': 'ml-platform',
          },
        },
        spec: { clusterQueue: 'gpu-ml-platform' },
      })),
    );
  });

  it('gives the OCR batch namespace a queue into gpu-batch', () => {
    const [queue] = renderTeamManifests(
      servingAndOcrBatchPlatform(),
      'batch',
    ) as LocalQueue[];
    expect(queue.metadata.namespace).toBe('batch');
    expect(queue.spec.clusterQueue).toBe('gpu-batch');
  });

  it('uses the Kueue version of the platform', () => {
    const [queue] = renderTeamManifests(
      demoPlatform('kueue.x-k8s.io/v1beta1'),
      'search',
    );
    expect(queue.apiVersion).toBe('kueue.x-k8s.io/v1beta1');
  });

  it('refuses an unknown team, naming the known ones', () => {
    expect(() => renderTeamManifests(demoPlatform(), 'nobody')).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_TEAM',
        message: expect.stringMatching(/ml-platform or search/),
      }),
    );
  });
});
