import { alpha, makeStyles } from '@material-ui/core/styles';

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

/**
 * A chosen row in the primary colour: MUI's selected row takes the theme's secondary colour, which the Backstage theme
 * makes pink, the colour of an error.
 */
export const useChoiceRowStyles = makeStyles(theme => ({
  row: {
    // Doubled to outrank the theme's alternating row background (`:nth-of-type(odd)`).
    '&&$selected, &&$selected:hover': {
      backgroundColor: alpha(theme.palette.primary.main, 0.12),
    },
  },
  selected: {},
}));
