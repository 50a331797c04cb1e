/** The kinds a job is described by: its module, its idle-resources mode, its standing. */

/** PAI's modules: training (DLC), notebooks (DSW), inference services (EAS). */
export const MODULES = ['DLC', 'DSW', 'EAS'] as const;
export type Module = (typeof MODULES)[number];

export const IDLE_MODES = ['none', 'acceptable', 'only'] as const;
/** Idle-resources mode of a job (SEMANTICS 4). */
export type IdleMode = (typeof IDLE_MODES)[number];

export const STANDINGS = ['in-quota', 'borrowing', 'idle'] as const;
/** Standing of a running job (SEMANTICS 2); spot is not modelled yet. */
export type Standing = (typeof STANDINGS)[number];
