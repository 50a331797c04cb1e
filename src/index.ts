/**
 * Quotient as a library: load policies, answer what-if questions, check promises.
 * The CLI (src/cli) is one user of this API.
 */
export { Session, type AskResult, type SessionOptions } from './engine/session.js';
export type { AnswerRequest, RequestOrigin } from './engine/request.js';
export type { FullAnswer } from './engine/pipeline.js';
export type { StartEstimate, StartEstimator } from './engine/estimate.js';
export { estimateStart } from './simulate/start-estimate.js';
export { BatchPool, InvalidRequestError, type BatchPoolOptions, type AnswerAllOptions } from './pool/batch-pool.js';
export type { BatchQuery } from './pool/batch-types.js';
export type { Answer, Decision, PodAnswer, VictimAnswer } from './engine/answer.js';
export { loadPolicy, type LoadOptions, type LoadResult } from './policy/load-policy.js';
export { readBundles, type Bundle } from './policy/parse/read-files.js';
export type { InputFile } from './policy/parse/source-doc.js';
export { policyJsonSchema } from './policy/validate/schema.js';
export { compileRules, type CompiledRule } from './rules/compile-rules.js';
export { checkPromise, type PromiseResult, type Counterexample } from './verify/check-promise.js';
export { createKernel } from './kernel/create-kernel.js';
export type { Kernel } from './kernel/types.js';
export type { Finding, Severity } from './errors.js';
export type * from './model/policy.js';
export type { PolicyPromise } from './model/promise.js';
