/**
 * Limits on every GraphQL operation (docs/GRAPHQL-CONTRACT.md "Access"): nesting depth, aliases,
 * cost and tokens through graphql-armor, plus our own limit on mutation root fields, and a
 * guard for documents nested deeper than the parser's stack. Every refusal happens before
 * anything runs and says which limit was crossed and by how much; the validation limits are
 * reported as validation errors (HTTP 400, `GRAPHQL_VALIDATION_FAILED`), never as syntax
 * errors.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, Kind, type ASTVisitor, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * The limits, per operation (docs/OPERATIONS.md "Limits"):
 * - `maxDepth`: nesting of selection sets (`workflowRun { parent { runId } }` is 3);
 * - `maxAliases`: aliased fields in the whole document;
 * - `maxDirectives`: directives in the whole document;
 * - `maxCost`: graphql-armor's cost estimate (objects 2, scalars 1, depth factor 1.5);
 * - `maxTokens`: lexical tokens of the document (checked while parsing);
 * - `maxMutationFields`: root fields of one mutation operation (`__typename` not counted).
 */
export const QUERY_LIMITS = {
  maxDepth: 12,
  maxAliases: 30,
  maxDirectives: 50,
  maxCost: 20_000,
  maxTokens: 5_000,
  maxMutationFields: 5,
} as const;

/** Which limit a refusal names, in `extensions.limit.name`. */
export type QueryLimitName = keyof typeof QUERY_LIMITS;

/**
 * The refusal of a validation limit: `<what> <found> exceeds the maximum of <max> by <found - max>.`
 * with `extensions.limit = { name, maximum, found }` for clients.
 *
 * @param what the measured quantity, e.g. `Query depth`
 * @param found the measured value (rounded up when graphql-armor reports a fraction)
 */
export function limitExceeded(name: QueryLimitName, what: string, found: number): GraphQLError {
  const maximum = QUERY_LIMITS[name];
  const measured = Math.ceil(found);
  return new GraphQLError(`${what} ${measured} exceeds the maximum of ${maximum} by ${measured - maximum}.`, {
    extensions: { limit: { name, maximum, found: measured } },
  });
}

/**
 * graphql-armor words its refusals `Syntax Error: … limit of N exceeded, found M.` and, by
 * default, throws them out of validation (yoga then answers HTTP 200 without a code, and
 * graphql-ws fails the whole socket). This handler reports our own wording as a validation
 * error instead; the measured value is the `found M` of armor's message (its only carrier).
 */
function reportAs(name: QueryLimitName, what: string) {
  return {
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => {
        const found = Number(/found (\S+)\.$/.exec(error.message)?.[1]);
        context?.reportError(
          Number.isFinite(found)
            ? limitExceeded(name, what, found)
            : new GraphQLError(`${what} exceeds the maximum of ${QUERY_LIMITS[name]}.`, {
                extensions: { limit: { name, maximum: QUERY_LIMITS[name] } },
              }),
        );
      },
    ],
  };
}

/**
 * Counts the root fields of a selection set, through fragments; `__typename` is not counted
 * (it writes nothing). A fragment cycle is counted once (validation refuses it anyway).
 */
function countRootFields(context: ValidationContext, selectionSet: SelectionSetNode, seen = new Set<string>()): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== '__typename') count += 1;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += countRootFields(context, selection.selectionSet, seen);
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      if (fragment !== undefined && fragment !== null) count += countRootFields(context, fragment.selectionSet, seen);
    }
  }
  return count;
}

/**
 * Validation rule: a mutation operation selects at most {@link QUERY_LIMITS.maxMutationFields}
 * root fields (one request ran 15 claims). Every root field counts, whatever
 * its alias or directives.
 */
export const MaxMutationFieldsRule: ValidationRule = (context: ValidationContext): ASTVisitor => ({
  OperationDefinition(operation) {
    if (operation.operation !== 'mutation') return;
    const count = countRootFields(context, operation.selectionSet);
    if (count > QUERY_LIMITS.maxMutationFields) {
      const error = limitExceeded('maxMutationFields', 'Mutation root fields', count);
      context.reportError(new GraphQLError(error.message, { nodes: operation, extensions: error.extensions }));
    }
  },
});

/**
 * The GraphQL parser recurses once per nesting level of a value literal or selection set, so a
 * document nested a couple of thousand levels deep overflows the stack while still under
 * `maxTokens`. That overflow is reported as a syntax error (HTTP 400; over graphql-ws an error
 * for that subscription) instead of an internal error. graphql-armor's token refusal, raised
 * while parsing, is reworded to name the limit.
 */
function parseGuard(): Plugin {
  return {
    // An after-parse hook sees the outcome of whatever parser won (graphql-armor's maxTokens
    // replaces the parse function), so the plugin order does not matter.
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (result instanceof RangeError) {
          replaceParseResult(new GraphQLError('Syntax Error: Document is nested too deeply.', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } }));
        } else if (result instanceof GraphQLError && result.message.startsWith('Syntax Error: Token limit')) {
          replaceParseResult(
            new GraphQLError(`Document has more than the maximum of ${QUERY_LIMITS.maxTokens} tokens.`, {
              extensions: { code: 'GRAPHQL_PARSE_FAILED', limit: { name: 'maxTokens', maximum: QUERY_LIMITS.maxTokens } },
            }),
          );
        }
      };
    },
  };
}

/** Our own validation rules, added to every operation on every transport. */
function mutationFieldsLimit(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(MaxMutationFieldsRule);
    },
  };
}

/**
 * The yoga plugins enforcing {@link QUERY_LIMITS}; add them to the server's plugin list.
 *
 * @returns plugins for parse (tokens, nesting) and validation (depth, aliases, cost, mutation fields)
 */
export function queryLimitPlugins(): Plugin[] {
  return [
    parseGuard(),
    EnvelopArmorPlugin({
      maxDepth: { n: QUERY_LIMITS.maxDepth, ...reportAs('maxDepth', 'Query depth') },
      maxAliases: { n: QUERY_LIMITS.maxAliases, ...reportAs('maxAliases', 'Aliases') },
      maxDirectives: { n: QUERY_LIMITS.maxDirectives, ...reportAs('maxDirectives', 'Directives') },
      costLimit: { maxCost: QUERY_LIMITS.maxCost, ...reportAs('maxCost', 'Query cost') },
      maxTokens: { n: QUERY_LIMITS.maxTokens },
      blockFieldSuggestion: { enabled: false },
    }),
    mutationFieldsLimit(),
  ];
}
