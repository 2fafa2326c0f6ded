export { GPU_TEAM_PICKER_FIELD } from './fieldName';
export { TeamPicker } from './TeamPicker';
export { validateTeamPicker } from './validateTeamPicker';
