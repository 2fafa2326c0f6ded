import { Entity } from '@backstage/catalog-model';
import { identityApiRef } from '@backstage/frontend-plugin-api';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/frontend-test-utils';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { createFieldValidation } from '@backstage/plugin-scaffolder-react/alpha';
import { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { TeamQuotaView } from '@gpu-platform/backstage-plugin-gpu-common';
import { gpuApiRef } from '../../api';
import { FakeGpuApi } from '../../__testUtils__/FakeGpuApi';
import { teamQuota } from '../../__testUtils__/gpuFixtures';
import { TeamPicker } from './TeamPicker';
import { validateTeamPicker } from './validateTeamPicker';

jest.setTimeout(30_000);

const group = (name: string): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Group',
  metadata: { name, namespace: 'default' },
  spec: { type: 'team', children: [] },
});

// The example org: the demo platform gives ml-platform and search quota, platform-team none.
const groups = [group('platform-team'), group('search'), group('ml-platform')];

/** A user who is a member of `teams` (examples/org.yaml's guest: ml-platform and platform-team). */
function memberOf(...teams: string[]) {
  return mockApis.identity({
    userEntityRef: 'user:default/guest',
    ownershipEntityRefs: [
      'user:default/guest',
      ...teams.map(t => `group:default/${t}`),
    ],
  });
}

function Field(props: { onValue: (value: string | undefined) => void }) {
  const [value, setValue] = useState<string | undefined>();
  const fieldProps = {
    formData: value,
    onChange: (next: string | undefined) => {
      setValue(next);
      props.onValue(next);
    },
    schema: { title: 'Owning team' },
    uiSchema: {},
    idSchema: { $id: 'root_owner' },
    rawErrors: [],
    required: true,
  } as unknown as FieldExtensionComponentProps<string>;
  return <TeamPicker {...fieldProps} />;
}

/** The options of the select as shown: label and whether it is disabled. */
async function renderedOptions(api: FakeGpuApi) {
  await renderInTestApp(
    <TestApiProvider
      apis={[
        [gpuApiRef, api],
        [catalogApiRef, catalogApiMock({ entities: groups })],
        [identityApiRef, memberOf('platform-team', 'search', 'ml-platform')],
      ]}
    >
      <Field onValue={() => {}} />
    </TestApiProvider>,
  );
  const select = await screen.findByLabelText(/^Owning team/);
  await within(select).findByRole('option', { name: /^ml-platform/ });
  const options = within(select).getAllByRole('option') as HTMLOptionElement[];
  return {
    select,
    options: options.map(o => [o.textContent, o.disabled]),
  };
}

/** ml-platform's quota with every pool of it held. */
function allHeld(): TeamQuotaView {
  const quota = teamQuota('ml-platform');
  return teamQuota('ml-platform', { ...quota.pools }, 2_000_000_000);
}

describe('TeamPicker', () => {
  it('marks teams without GPU quota with the reason, and lets only teams with quota be chosen', async () => {
    const onValue = jest.fn();
    const api = new FakeGpuApi();
    // ml-platform's services hold 3 of its 4 L4s.
    api.quotas.set(
      'ml-platform',
      teamQuota('ml-platform', { 'l4-ondemand': 3 }, 1_762_500_000),
    );
    await renderInTestApp(
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [catalogApiRef, catalogApiMock({ entities: groups })],
          [identityApiRef, memberOf('ml-platform', 'platform-team')],
        ]}
      >
        <Field onValue={onValue} />
      </TestApiProvider>,
    );
    const select = await screen.findByLabelText(/^Owning team/);
    await within(select).findByRole('option', { name: 'ml-platform' });
    const options = within(select).getAllByRole(
      'option',
    ) as HTMLOptionElement[];
    // Only the user's teams (search is not one); their own team without a quota record says why, in its words.
    expect(options.map(o => [o.textContent, o.disabled])).toEqual([
      ['Choose a team', false],
      ['ml-platform', false],
      [
        'platform-team (no GPU quota): no quota yet; the platform team sets team quotas on the GPU page',
        true,
      ],
    ]);

    await userEvent.selectOptions(select, 'group:default/ml-platform');
    expect(onValue).toHaveBeenLastCalledWith('group:default/ml-platform');
    expect(
      screen.getByText(
        'GPU quota left: a100-mig 4 of 4, h100 8 of 8, l4-mps 1 of 1, l4-ondemand 1 of 4, t4-timeslice 1 of 1 GPU-equivalents',
      ),
    ).toBeInTheDocument();
    // One request for every team's quota, and none for the platform.
    expect(api.callsOf('listTeamQuotas')).toEqual([[]]);
    expect(api.callsOf('getPlatform')).toEqual([]);
  });

  it('marks a team whose quota record gives no pool any GPUs', async () => {
    const api = new FakeGpuApi();
    api.quotas.set('search', {
      ...teamQuota('search'),
      pools: { 'l4-ondemand': 0 },
    });
    const { options } = await renderedOptions(api);
    expect(options).toContainEqual([
      'search (no GPU quota): none on any pool',
      true,
    ]);
  });

  it('says when a team has quota but all of it is held, and still lets it be chosen', async () => {
    const api = new FakeGpuApi();
    api.quotas.set('ml-platform', allHeld());
    const { select, options } = await renderedOptions(api);
    expect(options).toContainEqual(['ml-platform (no GPU quota left)', false]);
    await userEvent.selectOptions(select, 'group:default/ml-platform');
    expect(
      screen.getByText(
        'No GPU quota left: a100-mig 4 of 4 held, h100 8 of 8 held, l4-mps 1 of 1 held, l4-ondemand 4 of 4 held, t4-timeslice 1 of 1 held GPU-equivalents; a new service waits for approval',
      ),
    ).toBeInTheDocument();
  });

  it('says so when the quotas cannot be read', async () => {
    const api = new FakeGpuApi();
    api.listTeamQuotas = () => Promise.reject(new Error('Service Unavailable'));
    await renderInTestApp(
      <TestApiProvider
        apis={[
          [gpuApiRef, api],
          [catalogApiRef, catalogApiMock({ entities: groups })],
          [identityApiRef, memberOf('ml-platform')],
        ]}
      >
        <Field onValue={() => {}} />
      </TestApiProvider>,
    );
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not list the teams');
    expect(alert).toHaveTextContent('Service Unavailable');
    expect(screen.getByLabelText(/^Owning team/)).toBeDisabled();
  });
});

describe('validateTeamPicker', () => {
  async function errorsFor(value: string | undefined, api: unknown) {
    const validation = createFieldValidation();
    await validateTeamPicker(value as string, validation, {
      apiHolder: {
        get: ref => (ref.id === gpuApiRef.id ? (api as any) : undefined),
      },
      formData: {},
      schema: {},
    });
    return validation.__errors ?? [];
  }

  it('passes a team with quota, even all held, and fails one without, a non-group owner or quotas it cannot read', async () => {
    const api = new FakeGpuApi();
    api.quotas.set('search', {
      ...teamQuota('search'),
      pools: { 'l4-ondemand': 0 },
    });
    expect(await errorsFor('group:default/ml-platform', api)).toEqual([]);
    api.quotas.set('ml-platform', allHeld());
    expect(await errorsFor('group:default/ml-platform', api)).toEqual([]);
    expect(await errorsFor('group:default/search', api)).toEqual([
      'Team search has no GPU quota on any pool; ask the platform team for quota or choose another team',
    ]);
    expect(await errorsFor('group:default/platform-team', api)).toEqual([
      'Team platform-team has no GPU quota you can use: it is not a team of the GPU platform or you are not one of its members; choose another team',
    ]);
    expect(await errorsFor('user:default/bob', api)).toEqual([
      'The owner must be a group, not user:default/bob',
    ]);
    expect(await errorsFor(undefined, api)).toEqual(['Choose the owning team']);
    expect(
      await errorsFor('group:default/ml-platform', {
        listTeamQuotas: () => Promise.reject(new Error('Service Unavailable')),
      }),
    ).toEqual(["Could not check the team's GPU quota: Service Unavailable"]);
  });
});
