/**
 * The colours of the heat map and the quota bars: Okabe and Ito's palette ("Color
 * Universal Design", 2008), whose eight colours stay apart for the common colour-vision
 * deficiencies. Colour never carries a meaning alone: standings also differ in lightness
 * (dark blue, orange, light sky blue on light grey) and in the quota bars by pattern;
 * victims are hatched and the new job's nodes framed on the heat map, and every view
 * says the same in text.
 */
import type { Standing } from './api-types.js';

/** The eight colours of Okabe and Ito. */
export const OKABE_ITO = {
  black: '#000000',
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
} as const;

/** The colour of each standing. */
export const STANDING_COLOURS: Record<Standing, string> = {
  'in-quota': OKABE_ITO.blue,
  borrowing: OKABE_ITO.orange,
  idle: OKABE_ITO.skyBlue,
};

/** What each standing is called on screen. */
export const STANDING_LABELS: Record<Standing, string> = {
  'in-quota': 'in quota',
  borrowing: 'borrowing',
  idle: 'idle resources',
};

/** A GPU nothing holds. */
export const FREE_COLOUR = '#E4E4E4';
/** A free GPU of a cordoned node (nothing new lands there). */
export const CORDONED_COLOUR = '#8A8A8A';
/** The frame of the nodes a what-if answer places the job on. */
export const PLACEMENT_COLOUR = OKABE_ITO.vermillion;

/** Team colours, in order: every colour but black, which marks victims and the hovered node. */
const TEAM_COLOURS = [OKABE_ITO.blue, OKABE_ITO.orange, OKABE_ITO.bluishGreen, OKABE_ITO.reddishPurple, OKABE_ITO.skyBlue, OKABE_ITO.vermillion, OKABE_ITO.yellow] as const;

/**
 * A colour per workspace, by the workspaces' names in order, so a team keeps its colour
 * across reloads whatever order the nodes come in. Past seven teams colours repeat (the
 * legend and the hover text name the team).
 */
export function teamColours(workspaces: Iterable<string>): Map<string, string> {
  const names = [...new Set(workspaces)].sort();
  return new Map(names.map((w, i) => [w, TEAM_COLOURS[i % TEAM_COLOURS.length]!]));
}
