import { makeStyles } from '@material-ui/core/styles';

/**
 * Secondary text that stays above 4.5:1 contrast on a selected or hovered row, where the theme's
 * `text.secondary` (54% black) drops below it.
 */
export const useCaptionStyles = makeStyles(theme => ({
  caption: {
    color:
      theme.palette.type === 'dark'
        ? theme.palette.text.secondary
        : 'rgba(0, 0, 0, 0.7)',
  },
}));
