import { Entity } from '@backstage/catalog-model';
import {
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
import { gpuApiRef } from '../../api';
import { quotingApi } from '../TierPicker/__testUtils__/demoQuotes';
import { TeamPicker } from './TeamPicker';
import { validateTeamPicker } from './validateTeamPicker';

const group = (name: string): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Group',
  metadata: { name, namespace: 'default' },
  spec: { type: 'team', children: [] },
});

// The example org: the demo platform gives ml-platform and search quota, platform-team none.
const groups = [group('platform-team'), group('search'), group('ml-platform')];

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

describe('TeamPicker', () => {
  it('marks teams without GPU quota and lets only teams with quota be chosen', async () => {
    const onValue = jest.fn();
    await renderInTestApp(
      <TestApiProvider
        apis={[
          [gpuApiRef, quotingApi().api],
          [catalogApiRef, catalogApiMock({ entities: groups })],
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
    expect(options.map(o => [o.textContent, o.disabled])).toEqual([
      ['Choose a team', false],
      ['ml-platform', false],
      ['search', false],
      ['platform-team (no GPU quota)', true],
    ]);

    await userEvent.selectOptions(select, 'group:default/ml-platform');
    expect(onValue).toHaveBeenLastCalledWith('group:default/ml-platform');
    expect(
      screen.getByText(
        'GPU quota: l4-ondemand 4, a100-mig 4, l4-mps 1, t4-timeslice 1, h100 8 GPU-equivalents',
      ),
    ).toBeInTheDocument();
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

  it('passes a team with quota and fails one without, a non-group owner or a platform it cannot read', async () => {
    const { api } = quotingApi();
    expect(await errorsFor('group:default/ml-platform', api)).toEqual([]);
    expect(await errorsFor('group:default/platform-team', api)).toEqual([
      'Team platform-team has no GPU quota on any pool; ask the platform team for quota or choose another team',
    ]);
    expect(await errorsFor('user:default/bob', api)).toEqual([
      'The owner must be a group, not user:default/bob',
    ]);
    expect(await errorsFor(undefined, api)).toEqual(['Choose the owning team']);
    expect(
      await errorsFor('group:default/ml-platform', {
        getPlatform: () => Promise.reject(new Error('Service Unavailable')),
      }),
    ).toEqual(["Could not check the team's GPU quota: Service Unavailable"]);
  });
});
