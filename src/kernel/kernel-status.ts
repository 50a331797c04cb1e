/**
 * The wasm kernel's status codes (mirror of `assembly/status.ts`, checked by the layout
 * test) and what each means to a caller. Only numbers cross the boundary, so this table
 * is where a status becomes words.
 */
export const KERNEL_STATUS = {
  STATUS_OK: 0,
  STATUS_NO_ROOM: 1,
  STATUS_NOT_LOADED: 2,
  STATUS_BAD_CANDIDATE: 3,
  STATUS_DUPLICATE_CANDIDATE: 4,
  STATUS_BAD_CONSTRAINT: 5,
  STATUS_SCRATCH_TOO_SMALL: 6,
  STATUS_OUT_OF_MEMORY: 7,
  STATUS_BAD_SNAPSHOT: 8,
  STATUS_BAD_REQUEST: 9,
  STATUS_BAD_ORDER: 10,
  STATUS_BAD_JOB: 11,
} as const;

/** What a status means, for error messages (tests match codes, never this text). */
export const STATUS_MEANING: Readonly<Record<number, string>> = {
  [KERNEL_STATUS.STATUS_OK]: 'answered',
  [KERNEL_STATUS.STATUS_NO_ROOM]: 'no placement exists',
  [KERNEL_STATUS.STATUS_NOT_LOADED]: 'no snapshot is loaded',
  [KERNEL_STATUS.STATUS_BAD_CANDIDATE]: 'a candidate names a job outside the snapshot',
  [KERNEL_STATUS.STATUS_DUPLICATE_CANDIDATE]: 'a job appears twice among the candidates',
  [KERNEL_STATUS.STATUS_BAD_CONSTRAINT]: 'a constraint names an unknown resource',
  [KERNEL_STATUS.STATUS_SCRATCH_TOO_SMALL]: 'the scratch region is smaller than the query',
  [KERNEL_STATUS.STATUS_OUT_OF_MEMORY]: 'linear memory could not grow',
  [KERNEL_STATUS.STATUS_BAD_SNAPSHOT]: 'the snapshot is inconsistent',
  [KERNEL_STATUS.STATUS_BAD_REQUEST]: 'the request is malformed',
  [KERNEL_STATUS.STATUS_BAD_ORDER]: 'the victim order is not a permutation of the five criteria',
  [KERNEL_STATUS.STATUS_BAD_JOB]: 'a job names a missing node or GPU, a GPU already held, or a job that is not live',
};
