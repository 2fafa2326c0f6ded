/**
 * The name templates use for the owning-team picker: `ui:field: GpuTeamPicker`.
 *
 * @public
 */
export const GPU_TEAM_PICKER_FIELD = 'GpuTeamPicker';
