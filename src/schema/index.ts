/**
 * Builds the GraphQL schema: imports every type file (each registers its types on the
 * builder), then converts the builder to a GraphQLSchema.
 */
import { builder } from './builder.js';
import './errors.js';
import './enums.js';
import './workflow-run.js';
import './lineage.js';
import './viewer.js';
import './run-mutations.js';
import './claim-mutations.js';
import './subscriptions.js';

/** The executable schema. */
export const schema = builder.toSchema({ sortSchema: true });
export { createContext, createRunLoaders, type GraphQLContext, type Scope } from './context.js';
