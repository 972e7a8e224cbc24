import { builder } from '../builder.js';

/** `enum OrderDirection { ASC DESC }` (GitHub's GraphQL convention; docs/GRAPHQL-CONTRACT.md "Run-list search and order"). */
export const OrderDirectionEnum = builder.enumType('OrderDirection', {
  description: 'The direction of an order.',
  values: {
    ASC: { value: 'asc', description: 'Smallest (oldest) first.' },
    DESC: { value: 'desc', description: 'Largest (newest) first.' },
  } as const,
});
