// Status codes every query returns; `src/kernel/wasm-kernel.ts` maps them to meanings.
// Numbers only cross the boundary, so these are the kernel's whole error vocabulary.

/** The query was answered; results are in the output regions. */
export const STATUS_OK: i32 = 0;
/** No placement exists (even with every candidate preempted, for victim selection). */
export const STATUS_NO_ROOM: i32 = 1;
/** No snapshot is committed: call reserve, write the state, then commit. */
export const STATUS_NOT_LOADED: i32 = 2;
/** A candidate names a job outside the snapshot. */
export const STATUS_BAD_CANDIDATE: i32 = 3;
/** The same job appears twice among the candidates. */
export const STATUS_DUPLICATE_CANDIDATE: i32 = 4;
/** A constraint names a resource other than GPU (0), CPU (1) or MEM (2). */
export const STATUS_BAD_CONSTRAINT: i32 = 5;
/** The request exceeds the scratch capacities reserved for it. */
export const STATUS_SCRATCH_TOO_SMALL: i32 = 6;
/** Linear memory could not grow to the size asked. */
export const STATUS_OUT_OF_MEMORY: i32 = 7;
/** The snapshot is inconsistent: a pool or a pod's node out of range, or too many nodes. */
export const STATUS_BAD_SNAPSHOT: i32 = 8;
/** The request itself is malformed (gpu outside 1..32, too many constraints). */
export const STATUS_BAD_REQUEST: i32 = 9;
/** The victim order does not list each of the five criteria exactly once (criteria.ts). */
export const STATUS_BAD_ORDER: i32 = 10;
/** addJob/removeJob: a pod names a missing node or GPU or one already held, or the job is not live. */
export const STATUS_BAD_JOB: i32 = 11;
