// @ts-check
/**
 * Lint configuration (`npm run lint`): typescript-eslint over the TypeScript sources and
 * @graphql-eslint over the SDL and the client operations. Formatting is Prettier's
 * (`npm run format`); eslint-config-prettier turns off the rules it owns.
 * Every exception below carries its reason.
 */
import js from '@eslint/js';
import graphqlPlugin from '@graphql-eslint/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', 'test-artifacts/', 'scratch/', 'schema/generated/', 'bench/results.json'],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended, prettier],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Unused names are already refused by the compiler (noUnusedLocals/noUnusedParameters);
      // `_`-prefixed parameters are the documented way to keep a positional one.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Promises must be awaited, returned or explicitly voided: a dropped rejection in a server is a crash.
      '@typescript-eslint/no-floating-promises': 'error',
      // `== null` is the one comparison that means "null or undefined"; everything else is strict.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  // The layers (docs/ARCHITECTURE.md "Layers"): store → delivery → schema → server, each importing
  // only the layers before it; src/client is a package of its own and imports none of them. The
  // import strings are relative, so each pattern names the folders a file of its layer may not
  // reach by any number of `../`. src/client is flat and imports the generated types of the
  // top-level schema/ folder (`../../schema/generated/…`), which stays allowed.
  {
    files: ['src/store/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(delivery|schema|server)(/|$)',
              message: 'src/store is the first layer: it imports nothing of delivery, schema or server (docs/ARCHITECTURE.md "Layers").',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/delivery/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(schema|server)(/|$)',
              message: 'src/delivery imports only src/store: nothing of schema or server (docs/ARCHITECTURE.md "Layers").',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/schema/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+server(/|$)',
              message: 'src/schema imports nothing of src/server (docs/ARCHITECTURE.md "Layers").',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(store|delivery|schema|server)(/|$)|^(\\.\\./)+src/',
              message: 'src/client is a package of its own: it imports nothing of the server\'s layers (docs/ARCHITECTURE.md "Layers").',
            },
          ],
        },
      ],
    },
  },
  // Which kind of database file is open (our own or a pi-workflows state file) is asked in
  // src/store/layout/ only, the port the store's operations go through (docs/ARCHITECTURE.md
  // "Three kinds of database file"): a comparison with a kind, a `file.kind`, or the run order
  // index (a pi-workflows adapter's speed-up) anywhere else fails. Excepted: src/store/layout/,
  // the layout's home (its factory and the kind-dependent open decide by the kind).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/store/layout/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'BinaryExpression > Literal[value=/^(own|pi-workflows)$/]',
          message: 'Only src/store/layout/ asks which kind of database file is open: use the file layout (FileLayout, describeFile()).',
        },
        {
          selector: 'SwitchCase > Literal.test[value=/^(own|pi-workflows)$/]',
          message: 'Only src/store/layout/ asks which kind of database file is open: use the file layout (FileLayout, describeFile()).',
        },
        {
          selector: "MemberExpression[property.name='kind'][object.name='file'], MemberExpression[property.name='kind'][object.property.name='file']",
          message: 'Only src/store/layout/ reads the kind of the open file: use the file layout (FileLayout, describeFile()).',
        },
        {
          selector: "MemberExpression[property.name='runIndex']",
          message: "The run order index is the pi-workflows layout's speed-up: reach it through the file layout (src/store/layout/).",
        },
      ],
    },
  },
  {
    files: ['src/server/public/**/*.js'],
    extends: [js.configs.recommended, prettier],
    languageOptions: {
      sourceType: 'module',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        fetch: 'readonly',
        WebSocket: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        console: 'readonly',
        localStorage: 'readonly',
        sessionStorage: 'readonly',
        navigator: 'readonly',
        requestAnimationFrame: 'readonly',
        EventSource: 'readonly',
        AbortController: 'readonly',
        HTMLElement: 'readonly',
        Event: 'readonly',
        CustomEvent: 'readonly',
        crypto: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        Node: 'readonly',
      },
    },
  },
  {
    files: ['eslint.config.js'],
    extends: [js.configs.recommended],
  },
  {
    files: ['schema/**/*.graphql'],
    languageOptions: { parser: graphqlPlugin.parser },
    plugins: { '@graphql-eslint': graphqlPlugin },
  },
  {
    files: ['schema/schema.graphql'],
    rules: {
      ...graphqlPlugin.configs['flat/schema-recommended'].rules,
      // Only entities carry an identity: results, typed errors, connections, edges and the
      // viewer's value types and the run-list change feed's events (WorkflowRunChange: a cursor
      // and a run, which has its own id; the chain follow's WorkflowRunChainMoved) and the run counts
      // (WorkflowRunCounts, *StatusCount) are
      // values (clients cache them under their parent;
      // README "Client caches"). A new entity type without `id: ID!` still fails.
      '@graphql-eslint/strict-id-in-types': [
        'error',
        {
          acceptedIdNames: ['id'],
          acceptedIdTypes: ['ID'],
          exceptions: {
            // The run view (WorkflowRunView and every type under it) is a value read at one
            // presentation revision: clients cache it under its run (WorkflowRun.view), not by id.
            types: [
              'PageInfo',
              'RunClaim',
              'ViewerDelta',
              'ViewerPatchOperation',
              'WorkflowRunChange',
              'WorkflowRunChainMoved',
              'WorkflowRunCounts',
              'WorkflowRunView',
              'WorkflowRunViewReset',
              'WorkflowRunViewChanged',
              'RunContent',
              'RunDisplay',
              'RunSession',
              'RunSettingsScope',
              'RunSource',
              'RunStep',
              'RunTransition',
              'SessionEntry',
              'SessionEvent',
              'ToolCall',
              'TraceEvent',
              'WorkflowDefinition',
              'WorkflowDefinitionNode',
              'WorkflowDefinitionEdge',
              'WorkflowUpdate',
              'RunFollowUp',
              'RunWorkflowMessage',
              'RunWorkflowTurn',
              'InteractiveRequest',
              'HumanDecision',
              'HumanDecisionResolution',
            ],
            suffixes: ['Error', 'Success', 'Connection', 'Edge', 'Page', 'Batch', 'Required', 'StatusCount'],
          },
        },
      ],
      // Every type, field, argument and enum value is described (docs/GRAPHQL-CONTRACT.md).
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          rootField: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
          OperationDefinition: false,
        },
      ],
    },
  },
  {
    files: ['schema/operations/**/*.graphql'],
    rules: {
      ...graphqlPlugin.configs['flat/operations-recommended'].rules,
      // Client caches (Apollo, urql) normalise a WorkflowRun only when its `id` is selected
      // (docs/CLIENTS.md "Client caches").
      '@graphql-eslint/require-selections': ['error', { fieldName: 'id' }],
    },
  },
);
