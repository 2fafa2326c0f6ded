import FormControl from '@material-ui/core/FormControl';
import InputLabel from '@material-ui/core/InputLabel';
import MenuItem from '@material-ui/core/MenuItem';
import Select from '@material-ui/core/Select';
import {
  USAGE_WINDOWS,
  UsageWindowName,
} from '@gpu-platform/backstage-plugin-gpu-common';

const LABELS: Record<UsageWindowName, string> = {
  '1h': 'Last hour',
  '6h': 'Last 6 hours',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
};

/** Picks the time window usage and cost figures cover. */
export function WindowSelect(props: {
  value: UsageWindowName;
  onChange: (value: UsageWindowName) => void;
  /** Id of the label element; give one per select on a page. */
  id?: string;
}) {
  const id = props.id ?? 'gpu-window-select';
  return (
    <FormControl size="small" variant="outlined">
      <InputLabel id={id}>Window</InputLabel>
      <Select
        labelId={id}
        label="Window"
        // Names the select by its label and its value ("Window Last 7 days"), so the name holds the visible text.
        SelectDisplayProps={{ id: `${id}-value` }}
        value={props.value}
        onChange={e => props.onChange(e.target.value as UsageWindowName)}
        data-testid="window-select"
      >
        {USAGE_WINDOWS.map(w => (
          <MenuItem key={w} value={w}>
            {LABELS[w]}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}
