// ESLint flat config: the recommended JavaScript and TypeScript rules (tsc already checks types and
// unused names), plus the house rules that matter here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layers point one way: domain <- state <- streams <- api <- cli. Each folder may import only the
// layers below it; only files under an adapters/ folder import the Kafka, LevelDB and registry clients.
const LAYERS = ['domain', 'state', 'streams', 'api', 'cli'];
const ADAPTER_PACKAGES = ['kafkajs', 'classic-level', '@kafkajs/confluent-schema-registry'];
function layerRule(layer, { adapters }) {
  const above = LAYERS.slice(LAYERS.indexOf(layer) + 1);
  const patterns = above.length
    ? [
        {
          regex: `^(\\.\\./)+(${above.join('|')})/`,
          message: `${layer}/ must not import ${above.join(', ')}/ (layers: ${LAYERS.join(' <- ')}).`,
        },
      ]
    : [];
  const paths = adapters
    ? []
    : ADAPTER_PACKAGES.map((name) => ({ name, message: 'only files under an adapters/ folder import this client' }));
  return { 'no-restricted-imports': ['error', { paths, patterns }] };
}
const layerConfigs = LAYERS.flatMap((layer) => [
  { files: [`${layer}/**/*.ts`], ignores: [`${layer}/**/adapters/**`], rules: layerRule(layer, { adapters: false }) },
  { files: [`${layer}/**/adapters/**/*.ts`], rules: layerRule(layer, { adapters: true }) },
]);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        performance: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...layerConfigs,
);
