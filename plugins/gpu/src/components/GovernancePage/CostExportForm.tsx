import { useApi } from '@backstage/frontend-plugin-api';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import TextField from '@material-ui/core/TextField';
import Typography from '@material-ui/core/Typography';
import { useState } from 'react';
import { gpuApiRef } from '../../api';
import { ErrorText, errorMessage } from '../common';

/** `yyyy-MM-dd` of a time, in UTC. */
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Yesterday and the first day of its month, in UTC: the backend's default period. */
function defaultPeriod(now: number) {
  const lastDay = utcDay(now - 86_400_000);
  return { firstDay: `${lastDay.slice(0, 8)}01`, lastDay };
}

/** Hands `csv` to the browser as a download named `filename`. */
function download(filename: string, csv: string) {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

/**
 * Downloads the daily cost of every service and pool as FOCUS CSV (`GET /cost/export`) for the UTC days chosen: the
 * rows of a day add up to the node bill, unallocated capacity included.
 */
export function CostExportForm(props: { now?: () => number }) {
  const gpuApi = useApi(gpuApiRef);
  const [period, setPeriod] = useState(() =>
    defaultPeriod((props.now ?? Date.now)()),
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();

  const onDownload = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const file = await gpuApi.exportCosts(period);
      download(file.filename, file.csv);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box>
      <Typography variant="subtitle2">FinOps export (FOCUS CSV)</Typography>
      <Typography variant="body2" color="textSecondary">
        Daily cost per service, with each pool's unallocated capacity, tagged
        with team, environment, tier and the team's groups. The rows of a day
        add up to every pool's nodes x price x 24 hours.
      </Typography>
      <Box display="flex" alignItems="center" mt={1} style={{ gap: 16 }}>
        <TextField
          id="gpu-export-first-day"
          label="First day (UTC)"
          type="date"
          size="small"
          InputLabelProps={{ shrink: true }}
          value={period.firstDay}
          onChange={e => setPeriod({ ...period, firstDay: e.target.value })}
        />
        <TextField
          id="gpu-export-last-day"
          label="Last day (UTC)"
          type="date"
          size="small"
          InputLabelProps={{ shrink: true }}
          value={period.lastDay}
          onChange={e => setPeriod({ ...period, lastDay: e.target.value })}
        />
        <Button
          variant="outlined"
          color="primary"
          disabled={busy}
          onClick={onDownload}
        >
          {busy ? 'Exporting…' : 'Download CSV'}
        </Button>
      </Box>
      {error && <ErrorText>Could not export: {error}</ErrorText>}
    </Box>
  );
}
