import { makeStyles } from '@material-ui/core/styles';

/**
 * For a wrapper of a Backstage `Table` with sortable columns: each header's sort arrow sits in the header cell's right
 * padding instead of beside its title, so making a column sortable widens no column (the arrow is laid out, hidden,
 * on every sortable header, about 26 px each, which pushed the last columns out of the table's box at 1440 px).
 */
export const useSortArrowStyles = makeStyles({
  table: {
    '& th .MuiTableSortLabel-root': { position: 'relative' },
    '& th .MuiTableSortLabel-icon': {
      position: 'absolute',
      right: -18,
      margin: 0,
    },
  },
});
